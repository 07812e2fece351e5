// What one member of a federation needs in its cluster, as Kubernetes objects (pure): its broker's
// certificate with the CA, its own login and signing key, the logins its neighbours use on its
// broker, and per neighbour a Federation (mqtts URL, public key) with the login used there. The
// names are the ones the federation-member overlay reads (manifests/overlays/federation-member).
import { API_VERSION } from '../shared/crds/resources.ts';
import { EdgeshifuError } from '../shared/errors.ts';
import { loginPassword, signingKey, signingKeyPems, type FederationMaterial, type MemberCertificate } from './federation-pki.ts';

export const SYSTEM_NAMESPACE = 'edgeshifu-system';
export const SECRETS = { tls: 'edgeshifu-drone-tls', own: 'edgeshifu-drone', users: 'edgeshifu-drone-users' } as const;
export const BROKER_PORT = 8883;

export interface NeighbourAddress {
  readonly cluster: string;
  /** host or host:port of the neighbour's broker (port 8883 when absent). */
  readonly address: string;
}

export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Readonly<Record<string, string>> };
  readonly [field: string]: unknown;
}

const CLUSTER_ID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABELS = { 'app.kubernetes.io/part-of': 'edgeshifu', 'app.kubernetes.io/managed-by': 'edgeshifu-federation' };

function b64(value: string): string {
  return Buffer.from(value).toString('base64');
}

function secret(name: string, data: Readonly<Record<string, string>>, type = 'Opaque'): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: SYSTEM_NAMESPACE, labels: LABELS }, type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

/** `id=host[:port]` → a neighbour; a clear error naming the option otherwise. */
export function neighbourOption(value: string): NeighbourAddress {
  const at = value.indexOf('=');
  const cluster = value.slice(0, at);
  const address = value.slice(at + 1);
  if (at <= 0 || !CLUSTER_ID.test(cluster) || address === '' || /[/\s]/.test(address)) {
    throw new EdgeshifuError('invalid', `--neighbour "${value}" must be <cluster id>=<host>[:port], e.g. edge-2=edge-2.example.com`);
  }
  return { cluster, address };
}

function brokerUrl(address: string): string {
  const bracketed = address.startsWith('[');
  const hasPort = bracketed ? /\]:\d+$/.test(address) : /^[^:]+:\d+$/.test(address);
  const host = !bracketed && address.includes(':') && !hasPort ? `[${address}]` : address;
  return `mqtts://${hasPort ? host : `${host}:${String(BROKER_PORT)}`}`;
}

/** Every object `member` needs to join `neighbours`, in the order they can be applied. */
/** Whom `member` joins, and what it runs for them: image prefixes (none: nothing, the host's default). */
export interface Membership {
  readonly neighbours: readonly NeighbourAddress[];
  readonly allowedImages: readonly string[];
}

export function memberObjects(material: FederationMaterial, member: string, certificate: MemberCertificate, membership: Membership): KubeObject[] {
  const { neighbours, allowedImages } = membership;
  if (!CLUSTER_ID.test(member)) throw new EdgeshifuError('invalid', `cluster id "${member}" must be lower-case letters, digits and dashes (as EDGESHIFU_DRONE_CLUSTER)`);
  const twice = neighbours.find((n, i) => n.cluster === member || neighbours.findIndex((o) => o.cluster === n.cluster) !== i);
  if (twice !== undefined) throw new EdgeshifuError('invalid', `--neighbour ${twice.cluster} is ${twice.cluster === member ? 'this member itself' : 'given twice'}`);
  const own = signingKeyPems(signingKey(material, member));
  const objects: KubeObject[] = [
    secret(SECRETS.tls, { 'tls.crt': certificate.cert, 'tls.key': certificate.key, 'ca.crt': material.caCert }, 'kubernetes.io/tls'),
    secret(SECRETS.own, { password: loginPassword(material, member, member), 'signing-key': own.privatePem }),
    // The embedded broker's logins: one key per neighbour (its login name), its password here.
    secret(SECRETS.users, Object.fromEntries(neighbours.map((n) => [n.cluster, loginPassword(material, n.cluster, member)]))),
  ];
  for (const n of neighbours) {
    const credentials = `federation-${n.cluster}`;
    objects.push(secret(credentials, { username: member, password: loginPassword(material, member, n.cluster), 'ca.crt': material.caCert }));
    objects.push({
      apiVersion: API_VERSION, kind: 'Federation', metadata: { name: n.cluster, labels: LABELS },
      spec: { clusterId: n.cluster, brokerUrl: brokerUrl(n.address), credentialsSecretRef: { name: credentials, namespace: SYSTEM_NAMESPACE }, weight: 1, publicKey: signingKeyPems(signingKey(material, n.cluster)).publicPem,
        hosting: { podSecurity: 'restricted', allowedImages: [...allowedImages] } },
    });
  }
  return objects;
}

/** The API path server-side apply writes an object to. */
export function applyPath(object: KubeObject): string {
  const name = encodeURIComponent(object.metadata.name);
  if (object.kind === 'Secret') return `/api/v1/namespaces/${object.metadata.namespace ?? SYSTEM_NAMESPACE}/secrets/${name}`;
  if (object.kind === 'Federation') return `/apis/${API_VERSION}/federations/${name}`;
  throw new EdgeshifuError('internal', `no apply path for ${object.kind}`);
}
