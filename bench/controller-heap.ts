// The controller's caches on the V8 heap (footprint), without a cluster: N EdgeDevices,
// their Deployments, Services and deviceShifu pods, N other pods, the record of applied objects and
// the edgeMap, built through the same informers and projections as the controller (objects decoded
// from JSON page by page, as a list arrives), against the full objects cached as decoded (less
// managedFields, which every informer drops) in the same run. Prints bytes per object per cache.
// Usage: npm run bench:controller-heap -- [--devices 10000] [--nodes 100]
import { parseArgs } from 'node:util';
import type { KubernetesObject, V1Deployment, V1Pod, V1Service } from '@kubernetes/client-node';
import { Informer, type WatchFn } from '../shared/kube/informer.ts';
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import { deviceShifuDeployment } from '../controller/bundle/deployment.ts';
import { deviceShifuService, deviceShifuUrl } from '../controller/bundle/service.ts';
import { deviceShifuRole, deviceShifuRoleBinding, deviceShifuServiceAccount } from '../controller/bundle/access.ts';
import { AppliedObjects } from '../controller/applied.ts';
import { deploymentRecord, podRecord, serviceRecord, slimEdgeDevice, StringPool, versionOf } from '../controller/records.ts';
import { PodIndex } from '../controller/scheduling/pod-index.ts';
import { EdgeMapTopology } from '../controller/edgemap-topology.ts';
import type { EdgeDevice } from '../controller/world.ts';
import { EdgeMap } from '../edgemap/index.ts';
import { createLogger } from '../shared/log.ts';

const { values } = parseArgs({ options: { devices: { type: 'string', default: '10000' }, nodes: { type: 'string', default: '100' } } });
const DEVICES = Number(values.devices);
const NODES = Number(values.nodes);
const NS = 'deviceshifu';
const PAGE = 50;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:controller-heap)');

const uid = (i: number, kind: number): string => `${(kind * 1_000_000 + i).toString(16).padStart(8, '0')}-1f2e-4d3c-9b8a-${i.toString(16).padStart(12, '0')}`;
const stamp = (i: number): string => new Date(Date.parse('2026-11-23T02:40:00Z') + i * 250).toISOString().replace(/\.\d+Z$/, 'Z');
/** A timestamp as JSON carries it (client-node types them as Date, which the wire never holds). */
const at = (i: number): Date => stamp(i) as unknown as Date;
const nodeOf = (i: number): string => `edge-${String(i % NODES)}`;
const device = (i: number): { name: string; namespace: string; spec: { protocol: 'HTTP'; address: string } } =>
  ({ name: `device-${String(i)}`, namespace: 'devices', spec: { protocol: 'HTTP', address: `10.0.${String(i % 250)}.1:80` } });
const settings = { namespace: NS, image: 'ghcr.io/edgeshifu/edgeshifu:0.1.0', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '96Mi' };
const managed = (manager: string): unknown[] => [{ manager, operation: 'Apply', apiVersion: 'v1', time: stamp(0), fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {} } }, 'f:spec': {} } }];

function edgeDevice(i: number): EdgeDevice {
  const node = nodeOf(i);
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string): NonNullable<NonNullable<EdgeDevice['status']>['conditions']>[number] =>
    ({ type, status, reason, message, observedGeneration: 1, lastTransitionTime: stamp(i) });
  return {
    apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice',
    metadata: { name: `device-${String(i)}`, namespace: 'devices', uid: uid(i, 1), resourceVersion: String(100_000 + i), generation: 1,
      creationTimestamp: at(i), finalizers: ['shifu.edgenesis.io/deviceshifu-cleanup'], managedFields: managed('kubectl') as never },
    spec: { protocol: 'HTTP', address: device(i).spec.address, configMapName: 'thermometer-configmap-0.0.1' },
    status: { edgedevicephase: 'Running', nodeName: node, observedGeneration: 1, conditions: [
      condition('BundleReady', 'True', 'Available', `deviceShifu is available on ${node}`),
      condition('Scheduled', 'True', 'NodeChosen', `on ${node}: most free memory (63.97 GiB)`),
    ] },
  };
}

function served(i: number): V1Deployment {
  const d = deviceShifuDeployment(device(i), 'thermometer-configmap-0.0.1', { node: nodeOf(i), placedAt: stamp(i), reason: 'most free memory (63.97 GiB)' }, settings);
  Object.assign(d.metadata ?? {}, { uid: uid(i, 2), resourceVersion: String(200_000 + i), generation: 1, creationTimestamp: stamp(i), managedFields: managed('edgeshifu-controller') });
  Object.assign(d.metadata?.annotations ?? {}, { 'deployment.kubernetes.io/revision': '1' });
  Object.assign(d.spec ?? {}, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });
  d.status = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [
    { type: 'Available', status: 'True', lastUpdateTime: at(i), lastTransitionTime: at(i), reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
    { type: 'Progressing', status: 'True', lastUpdateTime: at(i), lastTransitionTime: at(i), reason: 'NewReplicaSetAvailable', message: `ReplicaSet "device-${String(i)}-deployment-7d9f8c6b5" has successfully progressed.` },
  ] };
  return d;
}

function service(i: number): V1Service {
  const s = deviceShifuService(device(i), NS, 'ClusterIP');
  const ip = `10.96.${String(Math.floor(i / 250))}.${String(i % 250)}`;
  Object.assign(s.metadata ?? {}, { uid: uid(i, 3), resourceVersion: String(300_000 + i), creationTimestamp: stamp(i), managedFields: managed('edgeshifu-controller') });
  Object.assign(s.spec ?? {}, { clusterIP: ip, clusterIPs: [ip], sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster' });
  s.status = { loadBalancer: {} };
  return s;
}

/** A pod as the API server serves it once KWOK runs it: the template with every default and a status. */
function pod(i: number, namespace: string): V1Pod {
  const template = served(i).spec?.template;
  const name = `device-${String(i)}-deployment-7d9f8c6b5-${i.toString(36).padStart(5, 'x')}`;
  const condition = (type: string): { type: string; status: string; lastTransitionTime: string } => ({ type, status: 'True', lastTransitionTime: stamp(i) });
  return {
    metadata: Object.assign(structuredClone(template?.metadata ?? {}), { name, generateName: name.slice(0, -5), namespace, uid: uid(i, namespace === NS ? 4 : 5), resourceVersion: String(400_000 + i),
      creationTimestamp: at(i), labels: { ...template?.metadata?.labels, 'pod-template-hash': '7d9f8c6b5' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: name.slice(0, -6), uid: uid(i, 6), controller: true, blockOwnerDeletion: true }],
      managedFields: managed('kube-controller-manager') as never }),
    spec: Object.assign(structuredClone(template?.spec ?? { containers: [] }), { nodeName: nodeOf(i), restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler', priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] }),
    status: { phase: 'Running', hostIP: `10.1.0.${String(i % NODES)}`, podIP: `10.244.${String(i % 250)}.${String(i % 200)}`, startTime: at(i), qosClass: 'Burstable',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition) as never,
      containerStatuses: [{ name: 'deviceshifu', ready: true, restartCount: 0, started: true, image: settings.image, imageID: '', containerID: `kwok://${uid(i, 7)}`, state: { running: { startedAt: at(i) } } }] },
  };
}

/** A list served by pages of freshly decoded JSON, as the API server's would arrive. */
function listFrom<T>(count: number, make: (i: number) => T): (each: (object: T) => void) => Promise<string> {
  return (each) => {
    for (let start = 0; start < count; start += PAGE) {
      const page = JSON.parse(JSON.stringify(Array.from({ length: Math.min(PAGE, count - start) }, (_, k) => make(start + k)))) as T[];
      for (const item of page) each(item);
    }
    return Promise.resolve('1');
  };
}

const idleWatch: WatchFn = (_path, _query, _onEvent, signal) => new Promise((resolve) => { signal.addEventListener('abort', () => { resolve(); }); });

async function filled<T extends KubernetesObject, C>(count: number, make: (i: number) => T, project?: (o: T, key: string) => C, versionOf?: (c: C) => string | undefined): Promise<Informer<T, C>> {
  const informer = new Informer<T, C>({ path: '/bench', watch: idleWatch, listEach: listFrom(count, make), project, versionOf });
  await informer.start();
  await informer.stop();
  return informer;
}

const kept: unknown[] = [];

/** Heap bytes held by what `build` returns, after full collections either side. */
async function heapOf(build: () => unknown): Promise<number> {
  gc?.(); gc?.();
  const before = process.memoryUsage().heapUsed;
  kept.push(await build());
  gc?.(); gc?.();
  return process.memoryUsage().heapUsed - before;
}

const pool = new StringPool();
const rows: Array<[string, number, number | undefined]> = [];
const per = (bytes: number): string => `${(bytes / DEVICES).toFixed(0).padStart(6)} B`;

async function compare<T extends KubernetesObject, C>(what: string, make: (i: number) => T, project: (o: T, key: string) => C, after?: (informer: Informer<T, C>) => unknown): Promise<Informer<T, C>> {
  const full = await heapOf(() => filled<T, T>(DEVICES, make));
  let informer: Informer<T, C> | undefined;
  const record = await heapOf(async () => {
    informer = await filled<T, C>(DEVICES, make, project, (c) => (c as KubernetesObject).metadata?.resourceVersion ?? versionOf(c as { resourceVersion: string | number | undefined }));
    return [informer, after?.(informer)];
  });
  rows.push([what, record, full]);
  if (informer === undefined) throw new Error('not filled');
  return informer;
}

function indexed(informer: Informer<V1Pod, ReturnType<typeof podRecord>>): PodIndex {
  const index = new PodIndex();
  informer.forEach((p) => { index.upsert(p); });
  return index;
}

const devices = await compare('EdgeDevice', edgeDevice, (d, key) => slimEdgeDevice(d, pool, key));
await compare('Deployment', served, (d) => deploymentRecord(d, pool));
await compare('Service', service, (s) => serviceRecord(s, pool));
await compare('deviceShifu Pod (+ pod index)', (i) => pod(i, NS), (p, key) => podRecord(p, NS, pool, key), indexed);
await compare('other Pod (+ pod index)', (i) => pod(i, 'baseline'), (p, key) => podRecord(p, NS, pool, key), indexed);
rows.push(['applied-object records', await heapOf(() => {
  const applied = new AppliedObjects();
  // owners by the cache's key string, as the reconciler records them
  const owners: string[] = [];
  devices.forEach((_d, key) => { owners.push(key); });
  for (let i = 0; i < DEVICES; i++) {
    const ref = device(i);
    const owner = owners[i] ?? '';
    applied.record(owner, deviceShifuServiceAccount(ref, NS), undefined);
    applied.record(owner, deviceShifuRole(ref), undefined);
    applied.record(owner, deviceShifuRoleBinding(ref, NS), undefined);
    applied.record(owner, served(i), served(i));
    applied.record(owner, service(i), service(i));
  }
  return applied;
}), undefined]);
rows.push(['edgeMap vertex and link', await heapOf(() => {
  const map = new EdgeMap();
  const topology = new EdgeMapTopology(map, createLogger('bench'));
  for (let n = 0; n < NODES; n++) topology.upsertNode(`edge-${String(n)}`, {});
  // fed from the EdgeDevice cache above, by its key strings, as the controller feeds it
  devices.forEach((cached, key) => {
    const ref = { name: cached.metadata.name ?? '', namespace: cached.metadata.namespace ?? '', spec: cached.spec };
    topology.upsertDevice(key, { spec: cached.spec, nodeName: cached.status?.nodeName, phase: cached.status?.edgedevicephase, url: deviceShifuUrl(ref, NS) });
  });
  // the map and the links waiting in the feed; the devices themselves are the EdgeDevice cache's, measured above
  return [map, topology];
}), undefined]);

console.log(`controller caches on the heap: ${String(DEVICES)} devices, ${String(NODES)} nodes (node ${process.version}, bytes per device)`);
console.log('  cache                              record     full object   ratio');
let total = 0;
let totalFull = 0;
for (const [what, record, full] of rows) {
  total += record;
  totalFull += full ?? record;
  console.log(`  ${what.padEnd(32)} ${per(record)}   ${full === undefined ? '         -' : per(full)}   ${full === undefined ? '  -' : (record / full).toFixed(2)}`);
}
console.log(`  ${'total per device (all rows)'.padEnd(32)} ${per(total)}   ${per(totalFull)}   ${(total / totalFull).toFixed(2)}`);
console.log(`  heap used at the end: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MiB (all of the above held at once, full objects included)`);
