// Controller benchmark: N EdgeDevices on M KWOK nodes, on the real control plane.
//  - baseline: a bare loop writes the same Deployment, Service and ServiceAccount per device
//    straight to the API server (the API server's own cost for the writes), on a control plane of
//    its own, stopped before the controller's run (its 10,000 pods kept the machine busy before);
//  - controller: the bundled controller (dist/bundle/controller.js, as the image runs it) turns
//    the same number of EdgeDevices into bundles; time from first create to all Deployments
//    (counted from a one-item page and remainingItemCount, a full list if absent), objects/s, peak
//    RSS of the process (VmHWM), the controller's API writes per device (its
//    edgeshifu_kube_writes_total), and the load average before and after (the machine is shared);
//    progress (bundles, RSS) every 30 s while it runs;
//  - then the steady state: the controller keeps running for --settle seconds (default 300, five
//    resync rounds) while its devices resync and their pods become available, and the peak RSS
//    of that window is reported apart (at 10,000 devices it was once higher than the peak while
//    the bundles were made).
// Usage: npm run bench:controller -- [--devices 1000] [--nodes 100] [--settle 300]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { ManagedProcess } from '../test/support/controlplane/process.ts';
import { startCluster } from '../test/support/controlplane/cluster.ts';
import { Kube } from '../test/support/cluster.ts';
import { installCrds } from '../test/support/crds.ts';
import { kubectl } from '../test/support/kubectl.ts';
import { shifuExample } from '../test/support/shifu/index.ts';
import { waitFor } from '../test/support/wait.ts';
import { manifestNodeFlags } from './node-flags.ts';
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import { deviceShifuDeployment } from '../controller/bundle/deployment.ts';
import { deviceShifuService } from '../controller/bundle/service.ts';
import { deviceShifuServiceAccount } from '../controller/bundle/access.ts';

const { values } = parseArgs({ options: { devices: { type: 'string', default: '1000' }, nodes: { type: 'string', default: '100' }, concurrency: { type: 'string', default: '8' }, settle: { type: 'string', default: '300' } } });
const DEVICES = Number(values.devices);
const NODES = Number(values.nodes);
const CONCURRENCY = Number(values.concurrency);
const SETTLE_S = Number(values.settle);

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

/** The controller's writes per device from its /metrics (port from its "serving" log line). */
async function writesPerDevice(logFile: string): Promise<string> {
  const line = (await readFile(logFile, 'utf8')).split('\n').find((l) => l.includes('serving /healthz'));
  if (line === undefined) return '?';
  const { port } = JSON.parse(line) as { port: number };
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const byVerb = new Map<string, number>();
  for (const match of text.matchAll(/^edgeshifu_kube_writes_total\{verb="(\w+)"[^}]*\} (\d+)$/gm)) {
    byVerb.set(match[1] ?? '', (byVerb.get(match[1] ?? '') ?? 0) + Number(match[2]));
  }
  const total = [...byVerb.values()].reduce((a, b) => a + b, 0);
  return `${(total / DEVICES).toFixed(2)} (${[...byVerb].map(([verb, n]) => `${verb} ${(n / DEVICES).toFixed(2)}`).join(', ')})`;
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Resident memory now (VmRSS), MB. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Prints `line()` every 30 s until stopped: a long run can be read while it goes. */
function every30s(line: () => Promise<string>): () => void {
  const started = performance.now();
  const timer = setInterval(() => {
    line().then((text) => { console.log(`  [${((performance.now() - started) / 1000).toFixed(0)} s] ${text} (load ${load()})`); }, () => undefined);
  }, 30_000);
  return () => { clearInterval(timer); };
}

/** A private control plane with the CRDs, the namespaces, the thermometer's ConfigMap and the KWOK nodes. */
async function cluster(name: string, nodes: readonly string[]): Promise<{ cluster: Awaited<ReturnType<typeof startCluster>>; kube: Kube }> {
  const started = await startCluster({ name });
  const kube = new Kube(started.kubeconfigPath);
  await installCrds(kube);
  for (const namespace of ['deviceshifu', 'devices', 'baseline']) await kube.core.createNamespace({ body: { metadata: { name: namespace } } });
  await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], stringify(shifuExample('thermometer-configmap')[0]));
  await inBatches(nodes, (n) => kube.addNode(n, { memory: '64Gi', cpu: '64', pods: '1000' }));
  return { cluster: started, kube };
}

/** RSS over the steady-state window: lowest and highest sample, and the process's peak at the end. */
async function settle(pid: number): Promise<{ min: number; max: number; peak: number }> {
  let min = Infinity;
  let max = 0;
  const stop = every30s(async () => `steady state: RSS ${(await rssMb(pid)).toFixed(0)} MB, peak ${(await peakRssMb(pid)).toFixed(0)} MB`);
  const end = performance.now() + SETTLE_S * 1000;
  try {
    while (performance.now() < end) {
      const rss = await rssMb(pid);
      min = Math.min(min, rss);
      max = Math.max(max, rss);
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, Math.max(0, end - performance.now()))));
    }
  } finally {
    stop();
  }
  return { min, max, peak: await peakRssMb(pid) };
}

const loadBefore = load();
const nodes = Array.from({ length: NODES }, (_, i) => `edge-${String(i)}`);
const names = Array.from({ length: DEVICES }, (_, i) => `device-${String(i)}`);

// baseline: the same writes, no controller, on a control plane of its own that is stopped before
// the controller's run, so its Deployments and pods (which kube-controller-manager and KWOK keep
// working on) do not load the machine, nor fill the controller's pod cache, during that run
const baselineMs = await (async (): Promise<number> => {
  const { cluster: plane, kube } = await cluster('edgeshifu-bench-baseline', nodes);
  try {
    const settings = { namespace: 'baseline', image: 'edgeshifu:bench', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '64Mi' };
    let done = 0;
    const stop = every30s(() => Promise.resolve(`baseline: ${String(done)} of ${String(DEVICES)} devices written`));
    const t0 = performance.now();
    await inBatches(names, async (name) => {
      const device = { name, namespace: 'devices', spec: { protocol: 'HTTP' as const, address: 'x:1' } };
      // spread over the nodes as the controller spreads its own: 10,000 pods on one node would not fit
      const node = nodes[Number(name.slice('device-'.length)) % nodes.length] ?? '';
      await kube.core.createNamespacedServiceAccount({ namespace: 'baseline', body: deviceShifuServiceAccount(device, 'baseline') });
      await kube.apps.createNamespacedDeployment({ namespace: 'baseline', body: deviceShifuDeployment(device, 'cm', { node, placedAt: '', reason: '' }, settings) });
      await kube.core.createNamespacedService({ namespace: 'baseline', body: deviceShifuService(device, 'baseline', 'ClusterIP') });
      done += 1;
    });
    stop();
    return performance.now() - t0;
  } finally {
    await plane.stop();
  }
})();
console.log(`  baseline done: ${(baselineMs / 1000).toFixed(1)} s (load ${load()})`);

const { cluster: plane, kube } = await cluster('edgeshifu-bench', nodes);
try {
  // the controller
  const controller = new ManagedProcess({
    name: 'controller', command: process.execPath, logFile: join(plane.dir, 'logs', 'controller.log'),
    // the flags the image and manifests/controller/deployment.yaml give it
    args: [...await manifestNodeFlags('manifests/controller/deployment.yaml'), 'dist/bundle/controller.js', '--kubeconfig', kube.kubeconfigPath, '--port', '0', '--no-leader-election', '--workers', '8'],
  });
  controller.start();
  await waitFor('the controller to sync', async () => (await readFile(controller.spec.logFile, 'utf8')).includes('reconciling') ? true : undefined);
  const pid = controller.pid ?? 0;
  const idleRss = await peakRssMb(pid);
  const stop = every30s(async () => `controller: ${String(await deploymentCount(kube, 'deviceshifu'))} of ${String(DEVICES)} bundles, RSS ${(await rssMb(pid)).toFixed(0)} MB, peak ${(await peakRssMb(pid)).toFixed(0)} MB`);
  const t1 = performance.now();
  let createdMs = 0;
  try {
    await inBatches(names, (name) => kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices',
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name }, spec: { protocol: 'HTTP', address: 'x:1', configMapName: 'thermometer-configmap-0.0.1' } } }));
    createdMs = performance.now() - t1;
    await waitFor('every bundle', async () => (await deploymentCount(kube, 'deviceshifu')) >= DEVICES ? true : undefined,
      { timeoutMs: 120 * 60_000, intervalMs: 500 });
  } finally {
    stop();
  }
  const controllerMs = performance.now() - t1;
  const peak = await peakRssMb(pid);
  const writes = await writesPerDevice(controller.spec.logFile);
  // the steady state: resyncs and availability updates of every device; RSS sampled every 5 s
  const settled = await settle(pid);
  await controller.stop();

  const objects = DEVICES * 5; // ServiceAccount, Role, RoleBinding, Deployment, Service
  console.log(`controller benchmark: ${String(DEVICES)} EdgeDevices, ${String(NODES)} KWOK nodes, ${String(CONCURRENCY)} concurrent client writes`);
  console.log(`  baseline (bare loop, 3 writes/device, own control plane):   ${(baselineMs / 1000).toFixed(1)} s, ${(DEVICES * 3 / (baselineMs / 1000)).toFixed(0)} objects/s`);
  console.log(`  EdgeDevices created by the client in:    ${(createdMs / 1000).toFixed(1)} s`);
  console.log(`  controller: creation → all bundles:      ${(controllerMs / 1000).toFixed(1)} s, ${(objects / (controllerMs / 1000)).toFixed(0)} bundle objects/s (+ status writes)`);
  console.log(`  ratio controller / baseline per object:  ${((controllerMs / objects) / (baselineMs / (DEVICES * 3))).toFixed(2)}`);
  console.log(`  controller API writes per device:        ${writes} (baseline: 3)`);
  console.log(`  controller RSS: idle ${idleRss.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (goal < 100 MB)`);
  if (SETTLE_S > 0) console.log(`  then ${String(SETTLE_S)} s of steady state: RSS ${settled.min.toFixed(0)}–${settled.max.toFixed(0)} MB sampled every 5 s, peak ${settled.peak.toFixed(0)} MB (VmHWM)`);
  console.log(`  machine load (1/5/15 min): before ${loadBefore}, after ${load()}`);
} finally {
  await plane.stop();
}
