// Real-node benchmark (a benchmark, not a test): every component as a container on a real kubelet
// with the image built here, its container working set read from the kubelet's summary API
// (/stats/summary through the API server's node proxy: what `kubectl top`, limits and eviction
// read), idle and after load: the controller, shifud, and per protocol (HTTP, MQTT, OPC UA, Modbus
// TCP, LwM2M) a deviceShifu and its mock; then EdgeDevice created -> deviceShifu pod Ready over N devices
// against a bare Deployment of the same image created in the same run, interleaved one by one.
//   npm run bench:realnode [-- --devices 50 --calls 5000 --idle-seconds 60 --quiet-seconds 15 --protocols all]
// --devices 0 leaves the latency run out. --controller-devices 10000 [--kwok-nodes 20
// --settle-seconds 300 --bundle-minutes 0 --kube-api-qps 20 --controller-workers 16
// --workers-after-minutes 4 (0: from the start) --datastore tmpfs] measures instead the controller, in a
// pod on the real node, with that many EdgeDevices on KWOK nodes (realnode-controller-scale.ts);
// kine's sqlite file goes to /dev/shm for that run (--datastore disk: the cluster's folder). Each
// component's PSS (container-pss.ts) is printed beside its working set and RSS. Ctrl-C takes the
// node down and puts the host back.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import { addThermometers, applyKustomization, applyObjects, httpGet, IMAGE, readyPods, realNodeWithImage, REPO } from '../test/realnode/support.ts';
import { MIB, summary } from './kubelet-summary.ts';
import { deviceName, deviceShifuPodPrefix, mockPodPrefix, pickProtocols, protocolObjects } from './realnode-devices.ts';
import { controllerAtScale } from './realnode-controller-scale.ts';
import { containerPss, type Pss } from './container-pss.ts';
import type { Kube } from '../test/support/cluster.ts';
import type { RealNodeCluster } from '../test/support/realnode/node.ts';
import { waitFor } from '../test/support/wait.ts';

const { values } = parseArgs({ options: {
  devices: { type: 'string', default: '50' }, calls: { type: 'string', default: '5000' }, 'idle-seconds': { type: 'string', default: '60' },
  protocols: { type: 'string', default: 'all' }, 'controller-devices': { type: 'string', default: '0' }, 'kwok-nodes': { type: 'string', default: '20' }, 'settle-seconds': { type: 'string', default: '300' }, 'bundle-minutes': { type: 'string', default: '0' },
  'kube-api-qps': { type: 'string', default: '' }, 'controller-workers': { type: 'string', default: '0' }, 'workers-after-minutes': { type: 'string', default: '0' },
  'quiet-seconds': { type: 'string', default: '15' }, datastore: { type: 'string', default: '' },
} });
const PROTOCOLS = pickProtocols(values.protocols);
const DEVICES = Number(values.devices);
const CALLS = Number(values.calls);
const IDLE_MS = Number(values['idle-seconds']) * 1000;
const QUIET_MS = Number(values['quiet-seconds']) * 1000;

interface Component { label: string; match: (ns: string, pod: string) => boolean }

const COMPONENTS: readonly Component[] = [
  { label: 'controller', match: (ns, pod) => ns === 'edgeshifu-system' && pod.startsWith('edgeshifu-controller-') },
  { label: 'shifud', match: (ns, pod) => ns === 'edgeshifu-system' && pod.startsWith('shifud-') },
  ...PROTOCOLS.flatMap((p): Component[] => [
    { label: `deviceShifu, ${p.label}`, match: (ns, pod) => ns === 'deviceshifu' && pod.startsWith(deviceShifuPodPrefix(p)) },
    { label: `mock device, ${p.label}`, match: (ns, pod) => ns === 'devices' && pod.startsWith(mockPodPrefix(p)) },
  ]),
];

interface Memory { ws: number; rss: number; pss?: Pss | undefined }

/** Each component's working set and RSS (stats/summary) and, read at the same moment, its PSS (container-pss.ts). */
async function workingSets(node: RealNodeCluster, kube: Kube): Promise<Map<string, Memory>> {
  const found = new Map<string, Memory>();
  const pods = (await Promise.all(['edgeshifu-system', 'deviceshifu', 'devices'].map(async (namespace) => (await kube.core.listNamespacedPod({ namespace })).items))).flat();
  for (const pod of (await summary(node)).pods) {
    const component = COMPONENTS.find((c) => c.match(pod.podRef.namespace, pod.podRef.name));
    const memory = pod.containers[0]?.memory;
    if (component === undefined || memory?.workingSetBytes === undefined) continue;
    const id = pods.find((p) => p.metadata?.name === pod.podRef.name && p.metadata.namespace === pod.podRef.namespace)?.status?.containerStatuses?.[0]?.containerID;
    found.set(component.label, { ws: memory.workingSetBytes / MIB, rss: (memory.rssBytes ?? 0) / MIB, pss: id === undefined ? undefined : await containerPss(id) });
  }
  return found;
}

/** `calls` GETs of the protocol's instruction through its deviceShifu's ClusterIP, 16 at a time. */
async function load(ip: string, instruction: string, calls: number): Promise<number> {
  let ok = 0;
  let left = calls;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (left-- > 0) if ((await httpGet(ip, 80, `/${instruction}`).catch(() => ({ status: 0 }))).status === 200) ok++;
  }));
  return ok;
}

const isReady = (pod: V1Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

async function timeToReady(kube: Kube, namespace: string, selector: string, create: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await create();
  await waitFor(`a Ready pod ${selector}`, async () => (await kube.core.listNamespacedPod({ namespace, labelSelector: selector })).items.some(isReady) ? true : undefined,
    { timeoutMs: 300_000, intervalMs: 50 });
  return performance.now() - started;
}

function bareDeployment(name: string): object {
  const labels = { app: name };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'bare' }, spec: { replicas: 1, selector: { matchLabels: labels },
    template: { metadata: { labels }, spec: { securityContext: { runAsNonRoot: true, runAsUser: 65532 }, containers: [{ name: 'mock', image: IMAGE, args: ['mockdevice', 'thermometer'],
      env: [{ name: 'MOCKDEVICE_PORT', value: '8080' }, { name: 'EDGESHIFU_BIND_ADDRESS', value: '0.0.0.0' }],
      // the deviceShifu's own readiness probe, on the mock's status route
      readinessProbe: { httpGet: { path: '/get_status', port: 8080 }, periodSeconds: 10, timeoutSeconds: 2 },
      resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '200m', memory: '96Mi' } } }] } } } };
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

function printMemory(title: string, sets: Map<string, Memory>): void {
  console.log(`\n${title} (container working set from stats/summary; its RSS, the summary's rssBytes: the cgroup's anonymous memory, and its processes' PSS from smaps_rollup, anonymous + file, beside it)`);
  for (const { label } of COMPONENTS) {
    const m = sets.get(label);
    const pss = m?.pss === undefined ? 'PSS n/a' : `PSS ${m.pss.pss.toFixed(1)} = ${m.pss.anon.toFixed(1)} + ${m.pss.file.toFixed(1)} MiB`;
    console.log(`  ${label.padEnd(36)} ${m === undefined ? 'n/a' : `${m.ws.toFixed(1)} MiB   (RSS ${m.rss.toFixed(1)} MiB, ${pss})`}`);
  }
}

/** Each protocol's mock, ConfigMap and EdgeDevice; waits for every deviceShifu pod to be Ready. */
async function addProtocolDevices(kube: Kube): Promise<void> {
  await applyObjects(kube, PROTOCOLS.flatMap((p) => protocolObjects(p, 'devices')));
  for (const p of PROTOCOLS) await readyPods(kube, 'deviceshifu', `app=${deviceName(p)}-deployment`);
  // Ready is deviceShifu's own state: wait for the device behind it too (an LwM2M client registers
  // on its own schedule, again every 30 s until deviceShifu's Service answers)
  for (const p of PROTOCOLS) {
    const ip = (await kube.core.readNamespacedService({ name: deviceName(p), namespace: 'deviceshifu' })).spec?.clusterIP ?? '';
    await waitFor(`/${p.device.tryInstruction} of ${deviceName(p)} to answer 200`, async () => ((await httpGet(ip, 80, `/${p.device.tryInstruction}`).catch(() => ({ status: 0 }))).status === 200 ? true : undefined), { timeoutMs: 180_000, intervalMs: 1000 });
  }
}

/**
 * Each protocol's load in turn; its deviceShifu and mock are read QUIET_MS after their own load
 * (deviceShifu collects once a busy spell ends), so every protocol is read at the same moment.
 */
async function loadEach(kube: Kube, node: RealNodeCluster): Promise<Map<string, Memory>> {
  const settled = new Map<string, Memory>();
  for (const p of PROTOCOLS) {
    const service = await kube.core.readNamespacedService({ name: deviceName(p), namespace: 'deviceshifu' });
    const started = performance.now();
    const ok = await load(service.spec?.clusterIP ?? '', p.device.tryInstruction, CALLS);
    console.log(`load, ${p.label}: ${ok} of ${CALLS} /${p.device.tryInstruction} calls answered 200 through the ClusterIP (16 at a time, ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    await delay(QUIET_MS);
    const sets = await workingSets(node, kube);
    for (const label of [`deviceShifu, ${p.label}`, `mock device, ${p.label}`]) {
      const m = sets.get(label);
      if (m !== undefined) settled.set(label, m);
    }
  }
  return settled;
}

async function latency(kube: Kube): Promise<void> {
  const shifu: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < DEVICES; i++) {
    shifu.push(await timeToReady(kube, 'deviceshifu', `app=lat-${i}-deployment`, () => addThermometers(kube, 'devices', [`lat-${i}`])));
    bare.push(await timeToReady(kube, 'bare', `app=bare-${i}`, () => applyObjects(kube, [bareDeployment(`bare-${i}`)])));
  }
  shifu.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  console.log(`\ncreated -> Ready over ${DEVICES}, one at a time, interleaved`);
  console.log(`  EdgeDevice -> deviceShifu pod Ready   p50 ${(pct(shifu, 50) / 1000).toFixed(2)} s   p99 ${(pct(shifu, 99) / 1000).toFixed(2)} s`);
  console.log(`  bare Deployment -> pod Ready           p50 ${(pct(bare, 50) / 1000).toFixed(2)} s   p99 ${(pct(bare, 99) / 1000).toFixed(2)} s`);
  console.log(`  ratio                                  p50 ${(pct(shifu, 50) / pct(bare, 50)).toFixed(2)}x   p99 ${(pct(shifu, 99) / pct(bare, 99)).toFixed(2)}x`);
}

const loadAverage = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

async function main(): Promise<void> {
  console.log(`load average at start: ${loadAverage()}`);
  if (!['', 'tmpfs', 'disk'].includes(values.datastore)) throw new Error(`--datastore is tmpfs (kine's file in /dev/shm) or disk (in the cluster's folder), not "${values.datastore}"`);
  const atScale = Number(values['controller-devices']) > 0;
  // kine's sqlite file on tmpfs for the run at scale (controller/README.md says why), unless --datastore disk
  const datastoreDir = (values.datastore === '' ? atScale : values.datastore === 'tmpfs') ? await mkdtemp('/dev/shm/edgeshifu-kine-') : undefined;
  // kube-controller-manager's and the scheduler's client rate: their defaults unless given
  const { node, kube } = await realNodeWithImage({ ...(values['kube-api-qps'] === '' ? {} : { kubeApiQps: Number(values['kube-api-qps']) }), ...(datastoreDir === undefined ? {} : { datastoreDir }) });
  const dropDatastore = async (): Promise<void> => { if (datastoreDir !== undefined) await rm(datastoreDir, { recursive: true, force: true }); };
  console.log(`kine's sqlite file in ${datastoreDir ?? node.cluster.dir}${datastoreDir === undefined ? '' : ' (tmpfs)'}`);
  process.once('SIGINT', () => { void node.stop().then(dropDatastore).finally(() => process.exit(130)); });
  try {
    if (atScale) {
      await controllerAtScale(node, kube, { devices: Number(values['controller-devices']), nodes: Number(values['kwok-nodes']), settleSeconds: Number(values['settle-seconds']), idleMs: IDLE_MS, bundleMs: Number(values['bundle-minutes']) * 60_000,
        workers: Number(values['controller-workers']), workersAfterMs: Number(values['workers-after-minutes']) * 60_000, loadAverage, datastoreDir: datastoreDir ?? node.cluster.dir });
      return;
    }
    await applyKustomization(kube, join(REPO, 'manifests', 'overlays', 'single-node'));
    await readyPods(kube, 'edgeshifu-system', 'app.kubernetes.io/name=edgeshifu-controller');
    await readyPods(kube, 'edgeshifu-system', 'app.kubernetes.io/name=shifud');
    await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
    await kube.core.createNamespace({ body: { metadata: { name: 'bare' } } });
    await addProtocolDevices(kube);
    await delay(IDLE_MS);
    printMemory(`idle, ${IDLE_MS / 1000} s after Ready (load average ${loadAverage()})`, await workingSets(node, kube));
    console.log('');
    const settled = await loadEach(kube, node);
    printMemory(`each protocol's deviceShifu and mock ${QUIET_MS / 1000} s after its own ${CALLS} calls (controller and shifud: now; load average ${loadAverage()})`, new Map([...await workingSets(node, kube), ...settled]));
    if (DEVICES > 0) await latency(kube);
    printMemory(`after load (${CALLS} calls per protocol${DEVICES > 0 ? `, then ${DEVICES} devices made by the controller` : ''}; load average ${loadAverage()})`, await workingSets(node, kube));
    const devices = await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices' }) as { items: unknown[] };
    console.log(`  (${devices.items.length} EdgeDevices at the end)`);
  } finally {
    await node.stop();
    await dropDatastore();
    console.log(`\nload average at end: ${loadAverage()}`);
  }
}

await main();
