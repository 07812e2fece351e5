// End-to-end signatures of bus messages (controller/drone/README.md, "Security"). On a relayed message the topic
// proves only the last hop, so each cluster signs what it publishes with its own Ed25519 key and
// receivers check the signature of the message's sender when they know that sender's public key
// (Federation `publicKey`). With `require`, a message whose sender cannot be checked is dropped.
// What is signed is every byte of the message after the `sig` field (codec.ts, `frame`): all
// fields except `hops`, which relays raise.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { EdgeshifuError, errorMessage } from '../errors.ts';

/** valid; unsigned (no `sig`); unknown-key (the sender's key is not known here); invalid (wrong signature). */
export type Verdict = 'valid' | 'unsigned' | 'unknown-key' | 'invalid';

function ed25519(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519') throw new EdgeshifuError('invalid', `${what} is a ${key.asymmetricKeyType ?? 'symmetric'} key; use an Ed25519 key (openssl genpkey -algorithm ed25519)`);
  return key;
}

/** An Ed25519 private key from PEM (PKCS#8, as `openssl genpkey -algorithm ed25519` writes it). */
export function privateKeyFrom(pem: string, what: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    // The PEM itself is never echoed: it is a credential.
    throw new EdgeshifuError('invalid', `${what} is not a PEM private key (openssl genpkey -algorithm ed25519)`);
  }
  return ed25519(key, what);
}

/** An Ed25519 public key from PEM (SPKI, as `openssl pkey -pubout` writes it). */
export function publicKeyFrom(pem: string, what: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new EdgeshifuError('invalid', `${what} is not a PEM public key (openssl pkey -pubout): ${errorMessage(err)}`);
  }
  return ed25519(key, what);
}

/** The public half, as PEM, to put into the neighbours' Federation resources. */
export function publicKeyPem(privateKey: KeyObject): string {
  return createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
}

export interface KeyringOptions {
  /** This cluster's key: everything it publishes is signed with it. */
  readonly privateKey?: KeyObject;
  /** Public keys of the clusters whose messages this cluster checks. */
  readonly peers?: ReadonlyMap<string, KeyObject>;
  /** Drop messages that are unsigned or from a cluster whose key is not known (local topics excepted). */
  readonly require?: boolean;
}

export class Keyring {
  private readonly privateKey?: KeyObject;
  private peers: ReadonlyMap<string, KeyObject>;
  readonly require: boolean;

  constructor(options: KeyringOptions) {
    if (options.privateKey !== undefined) this.privateKey = ed25519(options.privateKey, 'the signing key');
    this.peers = options.peers ?? new Map();
    this.require = options.require ?? false;
  }

  get signs(): boolean {
    return this.privateKey !== undefined;
  }

  /** Replaces the peers' keys (the Federation resources changed). */
  setPeers(peers: ReadonlyMap<string, KeyObject>): void {
    this.peers = peers;
  }

  /** Base64 Ed25519 signature of `bytes`, or undefined without a private key. */
  sign(bytes: Buffer): string | undefined {
    return this.privateKey === undefined ? undefined : sign(null, bytes, this.privateKey).toString('base64');
  }

  /** Checks `signature` (base64) of `bytes` against `sender`'s key. */
  verify(sender: string, bytes: Buffer | undefined, signature: string | undefined): Verdict {
    if (signature === undefined || bytes === undefined) return 'unsigned';
    const key = this.peers.get(sender);
    if (key === undefined) return 'unknown-key';
    const raw = Buffer.from(signature, 'base64');
    if (raw.length !== 64) return 'invalid';
    return verify(null, bytes, key, raw) ? 'valid' : 'invalid';
  }

  /** Whether a message with this verdict is accepted. */
  accepts(verdict: Verdict): boolean {
    if (verdict === 'invalid') return false;
    return verdict === 'valid' || !this.require;
  }
}
