// A federation of real control planes for offloading tests: each cluster has its own API server,
// KWOK nodes of a given size, the CRDs, and the real controller (in this process) with DRONE on,
// its embedded broker on 127.0.0.1, and Federation resources naming its neighbours.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { endpointFromKubeconfig, KubeClient } from '../../shared/kube/client.ts';
import { kubectl } from '../support/kubectl.ts';
import { writeFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ownCluster, type Kube } from '../support/cluster.ts';
import type { TestCluster } from '../support/controlplane/cluster.ts';
import { freePorts } from '../support/controlplane/ports.ts';
import { installCrds } from '../support/crds.ts';
import { startController, type RunningController } from '../support/controller.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { DroneFederatedDeployment } from '../../controller/offload/workload.ts';

export interface MemberSpec {
  readonly id: string;
  readonly cpu: string;
  readonly memory: string;
  /** Pods the KWOK node takes (110, as a kubelet, when absent). */
  readonly pods?: string;
  /** Extra controller flags for this member. */
  readonly args?: readonly string[];
}

export interface Member {
  readonly id: string;
  readonly kube: Kube;
  readonly cluster: TestCluster;
  readonly port: number;
  readonly password: string;
  readonly argv: string[];
  /** Run the controller with only its ServiceAccount's token (RBAC from manifests/). */
  readonly asServiceAccount: boolean;
  controller: RunningController;
}

/** Fast timers so a test converges in seconds; the lease is short enough to expire within a test. */
export const FAST_DRONE = [
  '--drone-lease-seconds', '6', '--drone-advert-interval-ms', '500', '--drone-advert-ttl-ms', '2500',
  '--drone-release-timeout-seconds', '8', '--drone-retry-seconds', '3', '--drone-reply-timeout-ms', '5000',
  '--drone-weak-agreement-ms', '3000', '--drone-scale-percent', '50',
];

export const APPS = 'apps';

/** Where member i says its NodePorts are: TEST-NET-1 (RFC 5737); KWOK runs nothing to reach there. */
export function publicAddress(i: number): string {
  return `192.0.2.${i + 1}`;
}

async function prepare(kube: Kube, spec: MemberSpec, peers: ReadonlyArray<{ id: string; password: string; port: number; publicKey?: string }>, self: { password: string }): Promise<void> {
  await installCrds(kube);
  for (const name of ['edgeshifu-system', 'deviceshifu', APPS]) await kube.core.createNamespace({ body: { metadata: { name } } });
  await kube.addNode(`${spec.id}-node`, { cpu: spec.cpu, memory: spec.memory, ...(spec.pods === undefined ? {} : { pods: spec.pods }) });
  const users = Object.fromEntries(peers.map((p) => [p.id, Buffer.from(p.password).toString('base64')]));
  await kube.core.createNamespacedSecret({ namespace: 'edgeshifu-system', body: { metadata: { name: 'drone-users' }, data: users } });
  for (const peer of peers) {
    await kube.core.createNamespacedSecret({ namespace: 'edgeshifu-system', body: { metadata: { name: `fed-${peer.id}` }, stringData: { username: spec.id, password: self.password } } });
    await kube.custom.createClusterCustomObject({
      group: GROUP, version: VERSION, plural: 'federations',
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Federation', metadata: { name: peer.id }, spec: { clusterId: peer.id, brokerUrl: `mqtt://127.0.0.1:${peer.port}`, credentialsSecretRef: { name: `fed-${peer.id}`, namespace: 'edgeshifu-system' }, hosting: { allowedImages: ['example.com/'] }, ...(peer.publicKey === undefined ? {} : { publicKey: peer.publicKey }) } },
    });
  }
}

export interface FederationOptions {
  /** Run the controllers with only their ServiceAccount's token. */
  readonly asServiceAccount?: boolean;
  /** Every cluster signs with its own Ed25519 key, peers' public keys are in the Federations, and signatures are required. */
  readonly signed?: boolean;
}

/** Every member's cluster, nodes, CRDs, Secrets and Federations; controllers are started by the caller. */
export async function prepareFederation(t: ExecutionContext, specs: readonly MemberSpec[], options: FederationOptions = {}): Promise<Member[]> {
  const ports = await freePorts(specs.length);
  const secrets = specs.map(() => randomBytes(12).toString('hex'));
  const keys = specs.map(() => generateKeyPairSync('ed25519'));
  const pem = (i: number, which: 'publicKey' | 'privateKey'): string => keys[i]?.[which].export({ type: which === 'publicKey' ? 'spki' : 'pkcs8', format: 'pem' }).toString() ?? '';
  const pairs = specs.flatMap((a, i) => specs.slice(i + 1).map((b) => [a.id, b.id] as const));
  const peersOf = (id: string): string[] => pairs.flatMap(([a, b]) => (a === id ? [b] : b === id ? [a] : []));
  const clusters = await Promise.all(specs.map(() => ownCluster(t)));
  const members: Member[] = [];
  for (const [i, spec] of specs.entries()) {
    const { kube, cluster } = clusters[i] ?? (() => { throw new Error('no cluster'); })();
    const peers = peersOf(spec.id).map((id) => {
      const j = specs.findIndex((s) => s.id === id);
      return { id, password: secrets[j] ?? '', port: ports[j] ?? 0, ...(options.signed === true ? { publicKey: pem(j, 'publicKey') } : {}) };
    });
    await prepare(kube, spec, peers, { password: secrets[i] ?? '' });
    const argv = [
      '--drone-cluster', spec.id, `--drone-password=${secrets[i] ?? ''}`, '--drone-users-secret', 'edgeshifu-system/drone-users',
      '--drone-broker-listen', `127.0.0.1:${ports[i] ?? 0}`, '--drone-public-address', publicAddress(i), ...FAST_DRONE, ...(spec.args ?? []),
      ...(options.signed === true ? [`--drone-signing-key=${pem(i, 'privateKey')}`, '--drone-require-signatures'] : []),
    ];
    members.push({ id: spec.id, kube, cluster, port: ports[i] ?? 0, password: secrets[i] ?? '', argv, asServiceAccount: options.asServiceAccount === true, controller: undefined as unknown as RunningController });
  }
  return members;
}

/** Starts every member's cluster and controller, each a neighbour of every other. */
export async function startFederation(t: ExecutionContext, specs: readonly MemberSpec[], options: FederationOptions = {}): Promise<Member[]> {
  const members = await prepareFederation(t, specs, options);
  for (const m of members) m.controller = await startMember(t, m);
  keepLogsOfFailure(t, members);
  return members;
}

/** EDGESHIFU_TEST_LOGS=dir keeps each in-process controller's log of a failed test. */
export function keepLogsOfFailure(t: ExecutionContext, members: readonly Member[]): void {
  t.teardown(() => {
    const dir = process.env.EDGESHIFU_TEST_LOGS;
    if (t.passed || dir === undefined) return;
    for (const m of members) if ((m.controller as RunningController | undefined) !== undefined) writeFileSync(`${dir}/offload-${m.id}.log`, m.controller.logs.join(''));
  });
}

const MANIFESTS = fileURLToPath(new URL('../../manifests/', import.meta.url));

/** The controller's RBAC from manifests/ (base rights plus DRONE's), and a client with only its ServiceAccount token. */
export async function serviceAccountClient(kube: Kube): Promise<KubeClient> {
  for (const file of ['controller/rbac.yaml', 'overlays/federation-member/drone.yaml']) {
    const result = await kubectl(kube.kubeconfigPath, ['apply', '-f', `${MANIFESTS}${file}`]);
    if (result.code !== 0) throw new Error(result.stderr);
  }
  const token = await kube.core.createNamespacedServiceAccountToken({ namespace: 'edgeshifu-system', name: 'edgeshifu-controller', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const admin = endpointFromKubeconfig(kube.kubeconfigPath);
  return new KubeClient({ server: admin.server, ca: admin.ca, token: token.status?.token });
}

export async function startMember(t: ExecutionContext, m: Member, extra: readonly string[] = []): Promise<RunningController> {
  const client = m.asServiceAccount ? await serviceAccountClient(m.kube) : undefined;
  const running = await startController(t, m.kube, [...m.argv, ...extra], client);
  await running.controller.offloading;
  return running;
}

/** A two-component app (api depends on db) asking for more than a small cluster has. */
/** Two components, api after db; apps in one namespace need a `suffix` each (component names are Service names). */
export function twoComponentApp(name: string, size: { cpu: string; memory: string } = { cpu: '500m', memory: '512Mi' }, suffix = ''): Record<string, unknown> {
  const component = (c: string, port: number, deps: string[]): Record<string, unknown> => ({
    name: c,
    ports: [{ name: 'http', port, targetPort: port }],
    ...(deps.length === 0 ? {} : { bootDependencies: deps }),
    template: { spec: { replicas: 1, template: { metadata: { labels: { tier: c } }, spec: { containers: [{ name: c, image: `example.com/${c}:1`, resources: { requests: size } }] } } } },
  });
  return {
    apiVersion: `${GROUP}/${VERSION}`, kind: 'DroneFederatedDeployment',
    metadata: { name, namespace: APPS },
    spec: { components: [component(`api${suffix}`, 8080, [`db${suffix}`]), component(`db${suffix}`, 5432, [])] },
  };
}

export async function createApp(kube: Kube, body: Record<string, unknown>): Promise<void> {
  await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: APPS, plural: 'dronefederateddeployments', body });
}

export async function readApp(kube: Kube, name: string): Promise<DroneFederatedDeployment | undefined> {
  try {
    return await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: APPS, plural: 'dronefederateddeployments', name }) as DroneFederatedDeployment;
  } catch {
    return undefined;
  }
}

export async function listCustom<T extends KubernetesObject>(kube: Kube, plural: string, namespace?: string): Promise<T[]> {
  const list = namespace === undefined
    ? await kube.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural }) as { items: T[] }
    : await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural }) as { items: T[] };
  return list.items;
}

/** Every distinct phase the member's caches saw a deployment go through, in order. */
export function recordPhases(m: Member, name: string): string[] {
  const seen: string[] = [];
  const offloader = m.controller.controller.offloader;
  if (offloader === undefined) throw new Error('offloading is off');
  const note = (d: DroneFederatedDeployment): void => {
    const phase = d.status?.phase;
    if (d.metadata.name === name && phase !== undefined && seen.at(-1) !== phase) seen.push(phase);
  };
  offloader.deployments.on('add', note);
  offloader.deployments.on('update', note);
  return seen;
}

/** The same for the hosting side's HostRequests of one component. */
export function recordHostPhases(m: Member, component: string): string[] {
  const seen: string[] = [];
  const offloader = m.controller.controller.offloader;
  if (offloader === undefined) throw new Error('offloading is off');
  const note = (r: { spec: { component: string }; status?: { phase?: string } }): void => {
    const phase = r.status?.phase;
    if (r.spec.component === component && phase !== undefined && seen.at(-1) !== phase) seen.push(phase);
  };
  offloader.hostRequests.on('add', note);
  offloader.hostRequests.on('update', note);
  return seen;
}
