// `bench:realnode -- --controller-devices 10000`: the controller as users run it, in its pod on the
// real node (single-node overlay, the manifests' limits and NODE_OPTIONS), with that many
// EdgeDevices placed on KWOK nodes; its container working set from the kubelet's summary API idle,
// every 30 s while it makes the bundles, and over a steady-state window after the last one (five
// resync rounds by default). The real node is cordoned once the controller runs there, so the
// controller's placement (which skips cordoned nodes) puts every deviceShifu on a KWOK node and
// the kubelet runs none of them. Beside the working set: the controller's V8 old generation (its
// /metrics) against the old-space cap, and the API server's writes per bundle by resource.
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import { applyKustomization, applyObjects, overlayOn, readyPods } from '../test/realnode/support.ts';
import type { Kube } from '../test/support/cluster.ts';
import type { RealNodeCluster } from '../test/support/realnode/node.ts';
import { shifuExample } from '../test/support/shifu/index.ts';
import { kubectl } from '../test/support/kubectl.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { apiText, podMemory } from './kubelet-summary.ts';
import { kineReader } from './kine-metrics.ts';
import { controllerScrape, perBundle, writesByResource } from './realnode-controller-metrics.ts';

export interface ScaleOptions {
  readonly devices: number;
  readonly nodes: number;
  readonly settleSeconds: number;
  readonly idleMs: number;
  /** Stop waiting for bundles after this long (0: until all are made), and report how many were. */
  readonly bundleMs: number;
  /**
   * Then this many reconcile workers (EDGESHIFU_WORKERS; 0 keeps the manifests' 4), `workersAfterMs`
   * into making the bundles; with `workersAfterMs` 0 the controller is installed with them (no roll,
   * which would re-apply every bundle made so far from a fresh process).
   */
  readonly workers: number;
  readonly workersAfterMs: number;
  readonly loadAverage: () => string;
  /** Where kine's sqlite file is (the bench's tmpfs folder or the cluster's), for its size. */
  readonly datastoreDir: string;
}

const CONCURRENCY = 8;
const SYSTEM = 'edgeshifu-system';
const CONTROLLER = 'app.kubernetes.io/name=edgeshifu-controller';

async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENCY) await Promise.all(items.slice(i, i + CONCURRENCY).map(work));
}

/** Deployments in a namespace: one item and the server's count of the rest, not a list of 10,000. */
async function deploymentCount(kube: Kube, namespace: string): Promise<number> {
  const page = await kube.apps.listNamespacedDeployment({ namespace, limit: 1 });
  const rest = page.metadata?.remainingItemCount;
  if (rest !== undefined) return page.items.length + rest;
  if (page.metadata?._continue === undefined || page.metadata._continue === '') return page.items.length;
  return (await kube.apps.listNamespacedDeployment({ namespace })).items.length;
}

/** Mean API server latency (ms) and count of writes per verb, from its own /metrics (apiserver_request_duration_seconds). */
async function apiWriteLatency(node: RealNodeCluster): Promise<string> {
  const { body } = await apiText(node, '/metrics');
  const sums = new Map<string, { sum: number; count: number }>();
  for (const line of body.split('\n')) {
    const m = /^apiserver_request_duration_seconds_(sum|count)\{(.*)\} (\S+)$/.exec(line);
    const verb = m === null ? undefined : /verb="(POST|PUT|PATCH|DELETE)"/.exec(m[2] ?? '')?.[1];
    if (m === null || verb === undefined) continue;
    const entry = sums.get(verb) ?? { sum: 0, count: 0 };
    if (m[1] === 'sum') entry.sum += Number(m[3]); else entry.count += Number(m[3]);
    sums.set(verb, entry);
  }
  return [...sums].map(([verb, { sum, count }]) => `${verb} ${count} at ${(1000 * sum / Math.max(1, count)).toFixed(0)} ms`).join(', ');
}

/** How often kube-controller-manager's own client waited over a second for its rate limiter (client-go logs those at -v=1). */
async function controllerManagerThrottled(node: RealNodeCluster): Promise<number> {
  const log = await readFile(join(node.cluster.dir, 'logs', 'kube-controller-manager.log'), 'utf8').catch(() => '');
  return log.split('\n').filter((l) => l.includes('client-side throttling')).length;
}

/** deviceShifu Deployments with their one replica ready, read in pages of 500. */
async function readyDeviceShifus(kube: Kube): Promise<number> {
  let ready = 0;
  let next: string | undefined;
  do {
    const page = await kube.apps.listNamespacedDeployment({ namespace: 'deviceshifu', limit: 500, ...(next === undefined ? {} : { _continue: next }) });
    ready += page.items.filter((d) => (d.status?.readyReplicas ?? 0) >= 1).length;
    next = page.metadata?._continue === '' ? undefined : page.metadata?._continue;
  } while (next !== undefined);
  return ready;
}

async function podCount(kube: Kube): Promise<number> {
  const page = await kube.core.listNamespacedPod({ namespace: 'deviceshifu', limit: 1 });
  return page.items.length + (page.metadata?.remainingItemCount ?? 0);
}

interface Samples { min: number; max: number; last: number; lastRss: number; rssAtMax: number }

interface Window { readonly what: string; readonly until: () => Promise<boolean> | boolean; readonly line: () => Promise<string> | string }

/** Samples the controller's working set every 5 s until `until()` is true; a line every 30 s. */
async function sample(node: RealNodeCluster, { what, until, line }: Window, loadAverage: () => string): Promise<Samples> {
  const samples: Samples = { min: Infinity, max: 0, last: 0, lastRss: 0, rssAtMax: 0 };
  const started = performance.now();
  let lastLine = started;
  for (;;) {
    const memory = await podMemory(node, SYSTEM, 'edgeshifu-controller-').catch(() => undefined);
    if (memory !== undefined) {
      samples.min = Math.min(samples.min, memory.ws);
      if (memory.ws > samples.max) Object.assign(samples, { max: memory.ws, rssAtMax: memory.rss });
      samples.last = memory.ws;
      samples.lastRss = memory.rss;
    }
    if (performance.now() - lastLine >= 30_000) {
      lastLine = performance.now();
      console.log(`  [${what} ${((lastLine - started) / 1000).toFixed(0)} s] ${await line()}; controller working set ${memory?.ws.toFixed(1) ?? '?'} MiB (RSS ${memory?.rss.toFixed(1) ?? '?'}) (load ${loadAverage()})`);
    }
    if (await until()) return samples;
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}

async function restarts(kube: Kube): Promise<string> {
  const [pod] = (await kube.core.listNamespacedPod({ namespace: SYSTEM, labelSelector: CONTROLLER })).items;
  const status = pod?.status?.containerStatuses?.[0];
  return `${status?.restartCount ?? '?'} restarts${status?.lastState?.terminated ? ` (last: ${status.lastState.terminated.reason ?? ''} exit ${status.lastState.terminated.exitCode})` : ''}`;
}

export async function controllerAtScale(node: RealNodeCluster, kube: Kube, options: ScaleOptions): Promise<void> {
  const { devices, nodes, loadAverage } = options;
  const onRealNode = { op: 'add', path: '/spec/template/spec/nodeSelector', value: { 'kubernetes.io/hostname': node.nodeName } };
  // a new controller pod (--controller-workers) still lands on the real node once it is cordoned
  const whileCordoned = { op: 'add', path: '/spec/template/spec/tolerations', value: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] };
  const workersAtStart = options.workers > 0 && options.workersAfterMs === 0;
  const withWorkers = { op: 'add', path: '/spec/template/spec/containers/0/env/-', value: { name: 'EDGESHIFU_WORKERS', value: String(options.workers) } };
  await applyKustomization(kube, await overlayOn('single-node', [
    { target: { group: 'apps', version: 'v1', kind: 'Deployment', name: 'edgeshifu-controller' }, patch: [onRealNode, whileCordoned, ...(workersAtStart ? [withWorkers] : [])] },
    // no shifud: once one EdgeNode exists the controller places only on nodes with one (a shifud
    // there), and on a KWOK node nothing would run shifud
    { target: { group: 'apps', version: 'v1', kind: 'DaemonSet', name: 'shifud' }, patch: [{ op: 'add', path: '/spec/template/spec/nodeSelector', value: { 'edgeshifu.io/bench': 'no-shifud' } }] },
  ]));
  const [pod] = await readyPods(kube, SYSTEM, CONTROLLER);
  console.log(`controller pod ${pod?.metadata?.name ?? '?'} Ready on ${pod?.spec?.nodeName ?? '?'}${workersAtStart ? `, ${options.workers} workers` : ''}`);
  const cordoned = await kubectl(kube.kubeconfigPath, ['cordon', node.nodeName]);
  if (cordoned.code !== 0) throw new Error(`kubectl cordon failed: ${cordoned.stderr}`);
  const kwokNodes = Array.from({ length: nodes }, (_, i) => `kwok-${i}`);
  // room for every deviceShifu with a quarter to spare (placement spreads them by free memory)
  const pods = String(Math.max(1000, Math.ceil((devices / nodes) * 1.25)));
  await inBatches(kwokNodes, (n) => kube.addNode(n, { memory: '64Gi', cpu: '64', pods }));
  await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
  await applyObjects(kube, shifuExample('thermometer-configmap'));
  await new Promise((resolve) => setTimeout(resolve, options.idleMs));
  const idle = await sample(node, { what: 'idle', until: () => true, line: () => '' }, loadAverage);
  console.log(`\ncontroller idle ${options.idleMs / 1000} s with ${nodes} KWOK nodes, no devices: working set ${idle.last.toFixed(1)} MiB (RSS ${idle.rssAtMax.toFixed(1)}); ${(await controllerScrape(node, kube)).heap} (load ${loadAverage()})`);

  const names = Array.from({ length: devices }, (_, i) => `device-${i}`);
  const started = performance.now();
  let created = 0;
  const creating = inBatches(names, async (name) => {
    await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices',
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name }, spec: { protocol: 'HTTP', address: 'thermometer.devices.svc.cluster.local:11111', configMapName: 'thermometer-configmap-0.0.1' } } });
    created += 1;
  });
  let bundles = 0;
  let nextThousand = 1000;
  let lastMark = { bundles: 0, writes: await writesByResource(node), own: (await controllerScrape(node, kube)).writes };
  const readKine = kineReader(node.cluster.kineMetricsUrl, options.datastoreDir);
  const giveUp = options.bundleMs > 0 ? started + options.bundleMs : Infinity;
  let workersSet = options.workers === 0 || workersAtStart;
  const moreWorkers = async (): Promise<void> => {
    if (workersSet || performance.now() - started < options.workersAfterMs) return;
    workersSet = true;
    // the Deployment rolls a new controller pod; it takes the Lease when the old one hands it back
    const set = await kubectl(kube.kubeconfigPath, ['-n', SYSTEM, 'set', 'env', 'deployment/edgeshifu-controller', `EDGESHIFU_WORKERS=${options.workers}`]);
    console.log(`  [${((performance.now() - started) / 1000).toFixed(0)} s] controller workers set to ${options.workers}: ${set.code === 0 ? 'rolling' : set.stderr}`);
  };
  const making = await sample(node, { what: 'bundles', until: async () => {
    await moreWorkers();
    bundles = await deploymentCount(kube, 'deviceshifu');
    if (bundles >= nextThousand) {
      const memory = await podMemory(node, SYSTEM, 'edgeshifu-controller-').catch(() => undefined);
      const [writes, own] = [await writesByResource(node), await controllerScrape(node, kube)];
      console.log(`  ${bundles} bundles at ${((performance.now() - started) / 1000).toFixed(0)} s: controller working set ${memory?.ws.toFixed(1) ?? '?'} MiB (RSS ${memory?.rss.toFixed(1) ?? '?'}); ${own.heap} (load ${loadAverage()})`);
      console.log(`    since ${lastMark.bundles}, the API server: ${perBundle(lastMark.writes, writes, bundles - lastMark.bundles)}`);
      console.log(`    the controller: ${perBundle(lastMark.own, own.writes, bundles - lastMark.bundles)}`);
      lastMark = { bundles, writes, own: own.writes.size > 0 ? own.writes : lastMark.own };
      nextThousand = (Math.floor(bundles / 1000) + 1) * 1000;
    }
    return bundles >= devices || performance.now() >= giveUp;
  }, line: async () => `${created} EdgeDevices created, ${bundles} bundles, ${await podCount(kube)} deviceShifu pods; ${(await controllerScrape(node, kube)).heap}; API writes: ${await apiWriteLatency(node)}; ${await readKine()}; controller-manager throttled ${await controllerManagerThrottled(node)} times` }, loadAverage);
  await creating;
  const madeS = (performance.now() - started) / 1000;
  console.log(`${bundles >= devices ? 'all ' : ''}${bundles} of ${devices} bundles in ${madeS.toFixed(1)} s; working set while making them ${making.min.toFixed(1)}–${making.max.toFixed(1)} MiB (RSS ${making.rssAtMax.toFixed(1)} at the peak); ${await restarts(kube)}`);

  let ready = 0;
  const allReady = await sample(node, { what: 'Ready', until: async () => (ready = await readyDeviceShifus(kube)) >= bundles,
    line: async () => `${ready} of ${bundles} deviceShifus Ready; ${await readKine()}` }, loadAverage);
  console.log(`${ready} deviceShifus Ready at ${((performance.now() - started) / 1000).toFixed(0)} s: controller working set ${allReady.last.toFixed(1)} MiB (RSS ${allReady.lastRss.toFixed(1)}) (load ${loadAverage()})`);

  const settleEnd = performance.now() + options.settleSeconds * 1000;
  const steady = await sample(node, { what: 'steady state', until: () => performance.now() >= settleEnd, line: async () => `${bundles = await deploymentCount(kube, 'deviceshifu')} bundles` }, loadAverage);
  const onRealNodeCount = (await kube.core.listNamespacedPod({ namespace: 'deviceshifu', fieldSelector: `spec.nodeName=${node.nodeName}`, limit: 1 })).items.length;
  console.log(`steady state, the ${options.settleSeconds} s after (${bundles} bundles at the end): working set ${steady.min.toFixed(1)}–${steady.max.toFixed(1)} MiB, ${steady.last.toFixed(1)} at the end (RSS ${steady.rssAtMax.toFixed(1)} at the peak, ${steady.lastRss.toFixed(1)} at the end); ${await readyDeviceShifus(kube)} deviceShifus Ready; ${(await controllerScrape(node, kube)).heap}; ${await restarts(kube)}`);
  console.log(`  deviceShifu pods on the real node: ${onRealNodeCount} (all on KWOK nodes when 0); aim: under 100 MiB at ${devices} devices`);
}
