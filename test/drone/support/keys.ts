// Ed25519 keys for tests and the benchmark: one per cluster, derived from its id, so every process
// of a federation can rebuild any cluster's key without passing keys around.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { Keyring } from '../../../shared/bus/signing.ts';

// PKCS#8 wrapping of a raw 32-byte Ed25519 seed (RFC 8410).
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export function clusterKey(cluster: string): KeyObject {
  const seed = createHash('sha256').update(`edgeshifu-test-key:${cluster}`).digest();
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
}

export function publicKeys(clusters: readonly string[]): Map<string, KeyObject> {
  return new Map(clusters.map((c) => [c, createPublicKey(clusterKey(c))]));
}

/** `cluster` signs with its own key and knows the keys of `peers`. */
export function keyringFor(cluster: string, peers: readonly string[], require: boolean): Keyring {
  return new Keyring({ privateKey: clusterKey(cluster), peers: publicKeys(peers), require });
}
