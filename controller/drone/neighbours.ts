// Federation resources (shared/crds/federation.ts) plus their credentials Secrets -> the relay's
// neighbour list, the proportion policy's weights and the peers' public keys for end-to-end
// signatures (pure; controller/offload/federation.ts wires the informers).
import type { KeyObject } from 'node:crypto';
import type { Neighbour } from '../../shared/bus/relay.ts';
import type { CustomObject } from '../../shared/crds/resources.ts';
import type { FederationSpec, FederationStatus } from '../../shared/crds/federation.ts';
import { publicKeyFrom } from '../../shared/bus/signing.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import { isLoopback } from '../../shared/bus/transport.ts';

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

export type Federation = CustomObject<FederationSpec, FederationStatus>;

/** Secret data as the API returns it (base64 values). */
export type SecretData = Readonly<Record<string, string>>;

function decoded(data: SecretData | undefined, key: string): string | undefined {
  const value = data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

/** The relay link for one Federation; throws 'not-found'/'invalid' naming the Secret and key to fix. */
export function neighbourOf(federation: Federation, secret: SecretData | undefined): Neighbour {
  const ref = federation.spec.credentialsSecretRef;
  const where = `Federation ${federation.metadata.name ?? '?'}: Secret ${ref.namespace}/${ref.name}`;
  if (secret === undefined) throw new EdgeshifuError('not-found', `${where} does not exist`);
  const username = decoded(secret, 'username');
  const password = decoded(secret, 'password');
  if (username === undefined || password === undefined) throw new EdgeshifuError('invalid', `${where} must have the keys username and password`);
  const ca = decoded(secret, 'ca.crt');
  const insecure = federation.spec.insecure === true;
  const plain = /^(mqtt|tcp|ws):\/\//.exec(federation.spec.brokerUrl);
  if (plain !== null && !insecure && !isLoopback(hostOf(federation.spec.brokerUrl))) {
    throw new EdgeshifuError('invalid', `Federation ${federation.metadata.name ?? '?'}: spec.brokerUrl ${federation.spec.brokerUrl} is plain text off this machine; use mqtts://<host>:8883 and put the federation CA in ${ref.namespace}/${ref.name} as ca.crt (edgeshifu federation), or set spec.insecure: true to accept it in clear`);
  }
  return { cluster: federation.spec.clusterId, url: federation.spec.brokerUrl, username, password, ...(ca === undefined ? {} : { tls: { ca } }), ...(insecure ? { insecure } : {}) };
}

export function weightsOf(federations: readonly Federation[]): Map<string, number> {
  return new Map(federations.map((f) => [f.spec.clusterId, f.spec.weight ?? 1]));
}

/**
 * The peers' public keys (Keyring peers). A Federation whose key does not parse is left out and
 * reported, naming it, so one bad resource does not stop the checks for the others.
 */
export function keysOf(federations: readonly Federation[]): { keys: Map<string, KeyObject>; errors: EdgeshifuError[] } {
  const keys = new Map<string, KeyObject>();
  const errors: EdgeshifuError[] = [];
  for (const f of federations) {
    if (f.spec.publicKey === undefined) continue;
    try {
      keys.set(f.spec.clusterId, publicKeyFrom(f.spec.publicKey, `Federation ${f.metadata.name ?? '?'}: spec.publicKey`));
    } catch (err) {
      errors.push(err instanceof EdgeshifuError ? err : new EdgeshifuError('invalid', String(err)));
    }
  }
  return { keys, errors };
}
