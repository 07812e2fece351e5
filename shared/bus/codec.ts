// JSON messages validated on receipt against the schema of their kind (issue 7): anything else
// is refused with a reason a metric can count, never thrown.
import { Type, type TSchema } from '@sinclair/typebox';
import { Validator } from '../validation.ts';
import { ENVELOPE, type Envelope } from './envelope.ts';

/** Why a message was dropped; a label of the dropped-messages counter. */
export type DropReason = 'too-large' | 'not-json' | 'unknown-kind' | 'invalid' | 'duplicate' | 'hop-limit' | 'wrong-sender' | 'wrong-recipient';

export type Decoded<M> = { readonly ok: true; readonly message: M } | { readonly ok: false; readonly reason: DropReason; readonly detail: string };

export const MAX_PAYLOAD_BYTES = 1 << 20;

export class MessageCodec<M extends Envelope> {
  private readonly validators: ReadonlyMap<string, Validator<TSchema>>;

  /** `schemas`: kind -> schema of the whole message (envelope included). */
  constructor(schemas: Readonly<Record<string, TSchema>>) {
    this.validators = new Map(Object.entries(schemas).map(([kind, schema]) => [kind, new Validator(schema, kind)]));
  }

  get kinds(): string[] {
    return [...this.validators.keys()];
  }

  decode(payload: Buffer | string): Decoded<M> {
    if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'too-large', detail: `payload of ${payload.length} bytes exceeds ${MAX_PAYLOAD_BYTES}` };
    let value: unknown;
    try {
      value = JSON.parse(payload.toString());
    } catch (err) {
      return { ok: false, reason: 'not-json', detail: err instanceof Error ? err.message : String(err) };
    }
    const kind = typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;
    const validator = typeof kind === 'string' ? this.validators.get(kind) : undefined;
    if (validator === undefined) return { ok: false, reason: 'unknown-kind', detail: `kind ${JSON.stringify(kind)} is not one of ${this.kinds.join(', ')}` };
    const errors = validator.errors(value);
    if (errors.length > 0) return { ok: false, reason: 'invalid', detail: errors.map((e) => `${e.field} ${e.message}`).join('; ') };
    return { ok: true, message: value as M };
  }

  encode(message: M): Buffer {
    return Buffer.from(JSON.stringify(message));
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
