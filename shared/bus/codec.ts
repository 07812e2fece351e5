// JSON messages validated on receipt against the schema of their kind: anything else
// is refused with a reason a metric can count, never thrown.
//
// Framing on the wire: `hops` comes first and `sig` (when signed) second, then the envelope and
// the body: {"hops":2,"sig":"<base64>","v":1,"kind":...}. A relay raises `hops` by rewriting only
// those first bytes and forwards the rest as it came (encoded once, by the sender), and the
// signature covers exactly that rest: every field but `hops` and `sig`. Decoding accepts any JSON
// object; a message not framed so can be read but not verified.
import { Type, type TSchema } from '@sinclair/typebox';
import { CompiledValidator } from '../compiled-validator.ts';
import { ENVELOPE, type Envelope } from './envelope.ts';
import { errorMessage } from '../errors.ts';

/** Why a message was dropped; a label of the dropped-messages counter. */
export type DropReason = 'too-large' | 'not-json' | 'unknown-kind' | 'invalid' | 'duplicate' | 'hop-limit' | 'wrong-sender' | 'wrong-recipient' | 'bad-signature' | 'rate-limited' | 'stale';

export type Decoded<M> = { readonly ok: true; readonly message: M } | { readonly ok: false; readonly reason: DropReason; readonly detail: string };
export type Parsed = { readonly ok: true; readonly value: Readonly<Record<string, unknown>> } | { readonly ok: false; readonly reason: DropReason; readonly detail: string };

export const MAX_PAYLOAD_BYTES = 1 << 20;

/** Signs the framed bytes after `sig` (signing.ts Keyring.sign): base64, or undefined for an unsigned message. */
export type Signer = (bytes: Buffer) => string | undefined;

const FRAME = /^\{"hops":(\d{1,3}),(?:"sig":"([A-Za-z0-9+/]{1,200}={0,2})",)?/;
/** Longest frame prefix: {"hops":255,"sig":"<200 base64>", */
const FRAME_PREFIX_BYTES = 240;

export interface Frame {
  readonly hops: number;
  readonly sig?: string;
  /** The bytes the signature covers (everything after the frame prefix, from the first envelope field). */
  readonly signed: Buffer;
}

/** The frame of a payload written by `encode`, or undefined for any other JSON. */
export function frameOf(payload: Buffer): Frame | undefined {
  const match = FRAME.exec(payload.toString('latin1', 0, Math.min(payload.length, FRAME_PREFIX_BYTES)));
  if (match === null) return undefined;
  const signed = payload.subarray(match[0].length);
  // An object needs a field after the frame; `{"hops":1,}` is not a message.
  if (signed.length < 2 || signed[0] !== 0x22) return undefined;
  return { hops: Number(match[1]), ...(match[2] === undefined ? {} : { sig: match[2] }), signed };
}

// The envelope as `encode` writes it: v, kind and id right after the frame.
const FRAMED_ID = /^\{"hops":\d{1,3},(?:"sig":"([A-Za-z0-9+/]{1,200}={0,2})",)?"v":1,"kind":"[a-z0-9-]{1,63}","id":"([A-Za-z0-9_.:-]{8,64})"/;
const FRAMED_ID_BYTES = 400;

/**
 * What de-duplication knows a message by: its id, with its signature when signed, so that a
 * forged copy (same id, another signature) never shadows the genuine one.
 */
export function keyOf(value: Readonly<Record<string, unknown>>): string | undefined {
  const { id, sig } = value;
  if (typeof id !== 'string') return undefined;
  return typeof sig === 'string' ? `${id}~${sig}` : id;
}

/** keyOf, read from the first bytes of a payload `encode` wrote, without parsing the rest; undefined otherwise. */
export function peekKey(payload: Buffer): string | undefined {
  const match = FRAMED_ID.exec(payload.toString('latin1', 0, Math.min(payload.length, FRAMED_ID_BYTES)));
  if (match?.[2] === undefined) return undefined;
  return match[1] === undefined ? match[2] : `${match[2]}~${match[1]}`;
}

/** The same payload with `hops` set, the rest of its bytes untouched (a relay's forward); undefined when not framed. */
export function withHops(payload: Buffer, hops: number): Buffer | undefined {
  const frame = frameOf(payload);
  if (frame === undefined) return undefined;
  const prefix = `{"hops":${hops},${frame.sig === undefined ? '' : `"sig":"${frame.sig}",`}`;
  return Buffer.concat([Buffer.from(prefix, 'latin1'), frame.signed]);
}

export class MessageCodec<M extends Envelope> {
  private readonly validators: ReadonlyMap<string, CompiledValidator<TSchema>>;

  /** `schemas`: kind -> schema of the whole message (envelope included). */
  constructor(schemas: Readonly<Record<string, TSchema>>) {
    this.validators = new Map(Object.entries(schemas).map(([kind, schema]) => [kind, new CompiledValidator(schema, kind)]));
  }

  get kinds(): string[] {
    return [...this.validators.keys()];
  }

  /** JSON only, no schema: cheap enough to run before de-duplication. */
  parse(payload: Buffer | string): Parsed {
    if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'too-large', detail: `payload of ${payload.length} bytes exceeds ${MAX_PAYLOAD_BYTES}` };
    let value: unknown;
    try {
      value = JSON.parse(payload.toString());
    } catch (err) {
      return { ok: false, reason: 'not-json', detail: errorMessage(err) };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'invalid', detail: 'not a JSON object' };
    return { ok: true, value: value as Record<string, unknown> };
  }

  /** The schema of the value's kind (compiled once per codec). */
  check(value: Readonly<Record<string, unknown>>): Decoded<M> {
    const kind = value.kind;
    const validator = typeof kind === 'string' ? this.validators.get(kind) : undefined;
    if (validator === undefined) return { ok: false, reason: 'unknown-kind', detail: `kind ${JSON.stringify(kind)} is not one of ${this.kinds.join(', ')}` };
    const errors = validator.errors(value);
    if (errors.length > 0) return { ok: false, reason: 'invalid', detail: errors.map((e) => `${e.field} ${e.message}`).join('; ') };
    return { ok: true, message: value as unknown as M };
  }

  decode(payload: Buffer | string): Decoded<M> {
    const parsed = this.parse(payload);
    return parsed.ok ? this.check(parsed.value) : parsed;
  }

  /** The framed JSON (see the top of this file), signed when `signer` gives a signature. */
  encode(message: M, signer?: Signer): Buffer {
    const { hops, v, kind, id, sender, timestamp, ...body } = message as Envelope & Record<string, unknown>;
    // A held signature is left out: the message is signed afresh, or goes unsigned.
    delete body.sig;
    // Envelope first, in a fixed order: the bytes a signature covers do not depend on how the object was built.
    const rest = Buffer.from(JSON.stringify({ v, kind, id, sender, timestamp, ...body }).slice(1));
    const signature = signer?.(rest);
    const prefix = `{"hops":${hops},${signature === undefined ? '' : `"sig":"${signature}",`}`;
    return Buffer.concat([Buffer.from(prefix, 'latin1'), rest]);
  }
}

/**
 * A codec that checks only the envelope (version, id, sender, timestamp, hops) of the given kinds:
 * enough for a relay to de-duplicate and count hops, cheap on every hop; receivers still validate
 * the whole message.
 */
export function envelopeCodec(kinds: readonly string[]): MessageCodec<Envelope> {
  const schema = (kind: string): TSchema => Type.Object({ ...ENVELOPE, kind: Type.Literal(kind) }, { additionalProperties: true });
  return new MessageCodec<Envelope>(Object.fromEntries(kinds.map((k) => [k, schema(k)])));
}
