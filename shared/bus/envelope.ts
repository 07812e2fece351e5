// What every bus message carries besides its body (controller/drone/README.md, "Messages"): schema version, kind,
// a unique id (duplicates are recognised by it), the sender cluster id, the sender's timestamp,
// a hop count that relays raise, so relayed traffic stops at the hop limit, and the sender's
// signature when it signs (signing.ts; codec.ts says which bytes it covers).
import { Type, type TLiteral, type TObject, type TOptional, type TProperties, type TInteger, type TString } from '@sinclair/typebox';

export const MESSAGE_VERSION = 1;

export const ClusterId = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', description: 'Cluster id from configuration (the thesis kept it in a ConfigMap).' });
export const MAX_HOPS = 255;
/** Most recipients one multi-recipient message names (its topic names them too: topics.ts multiTopic). */
export const MAX_RECIPIENTS = 64;

/**
 * The clusters a multi-recipient message is for (published once on a `multi` topic, topics.ts),
 * instead of `to`: signed with the rest, so a relay cannot hand it to anyone else.
 */
export const Recipients = Type.Optional(Type.Array(ClusterId, { minItems: 1, maxItems: MAX_RECIPIENTS, uniqueItems: true, description: 'Multi-recipient message: the clusters it is for (instead of to).' }));

export interface EnvelopeProperties {
  v: TLiteral<1>;
  id: TString;
  sender: TString;
  timestamp: TInteger;
  hops: TInteger;
  sig: TOptional<TString>;
}

export const ENVELOPE: EnvelopeProperties = {
  v: Type.Literal(MESSAGE_VERSION),
  id: Type.String({ minLength: 8, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$', description: 'Unique per message; relays and receivers drop ids seen before.' }),
  sender: ClusterId,
  timestamp: Type.Integer({ minimum: 0, description: 'Sender clock, ms since the epoch.' }),
  hops: Type.Integer({ minimum: 0, maximum: MAX_HOPS, description: 'Relays this message went through.' }),
  sig: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9+/]+={0,2}$', description: 'Ed25519 signature of the sender, base64, over every field but hops and sig.' })),
};

/** A message schema: the envelope, the literal kind, then the body; unknown fields are refused. */
export type MessageProperties<K extends string, P extends TProperties> = { v: TLiteral<1>; id: TString; sender: TString; timestamp: TInteger; hops: TInteger; sig: TOptional<TString>; kind: TLiteral<K> } & P;

export function message<K extends string, P extends TProperties>(kind: K, body: P): TObject<MessageProperties<K, P>> {
  return Type.Object({ ...ENVELOPE, kind: Type.Literal(kind), ...body }, { additionalProperties: false });
}

export interface Envelope {
  readonly v: 1;
  readonly id: string;
  readonly sender: string;
  readonly timestamp: number;
  readonly hops: number;
  readonly sig?: string;
  readonly kind: string;
}
