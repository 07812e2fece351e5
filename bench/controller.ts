// Controller benchmark (issue 3): N EdgeDevices on M KWOK nodes, on the real control plane.
//  - baseline: a bare loop writes the same Deployment, Service and ServiceAccount per device
//    straight to the API server (the API server's own cost for the writes);
//  - controller: the bundled controller (dist/bundle/controller.js, as the image runs it) turns
//    the same number of EdgeDevices into bundles; time from first create to all Deployments
//    (counted from a one-item page and remainingItemCount, a full list if absent), objects/s, peak
//    RSS of the process (VmHWM), the controller's API writes per device (its
//    edgeshifu_kube_writes_total), and the load average before and after (the machine is shared).
// Usage: npm run bench:controller -- [--devices 1000] [--nodes 100]
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
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import { deviceShifuDeployment } from '../controller/bundle/deployment.ts';
import { deviceShifuService } from '../controller/bundle/service.ts';
import { deviceShifuServiceAccount } from '../controller/bundle/access.ts';

const { values } = parseArgs({ options: { devices: { type: 'string', default: '1000' }, nodes: { type: 'string', default: '100' }, concurrency: { type: 'string', default: '8' } } });
const DEVICES = Number(values.devices);
const NODES = Number(values.nodes);
const CONCURRENCY = Number(values.concurrency);

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

const loadBefore = load();
const cluster = await startCluster({ name: 'edgeshifu-bench' });
try {
  const kube = new Kube(cluster.kubeconfigPath);
  await installCrds(kube);
  for (const name of ['deviceshifu', 'devices', 'baseline']) await kube.core.createNamespace({ body: { metadata: { name } } });
  await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], stringify(shifuExample('thermometer-configmap')[0]));
  const nodes = Array.from({ length: NODES }, (_, i) => `edge-${i}`);
  await inBatches(nodes, (n) => kube.addNode(n, { memory: '64Gi', cpu: '64', pods: '1000' }));
  const names = Array.from({ length: DEVICES }, (_, i) => `device-${i}`);

  // baseline: the same writes, no controller
  const settings = { namespace: 'baseline', image: 'edgeshifu:bench', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '64Mi' };
  const t0 = performance.now();
  await inBatches(names, async (name) => {
    const device = { name, namespace: 'devices', spec: { protocol: 'HTTP' as const, address: 'x:1' } };
    // spread over the nodes as the controller spreads its own: 10,000 pods on one node would not fit
    const node = nodes[Number(name.slice('device-'.length)) % nodes.length] ?? '';
    await kube.core.createNamespacedServiceAccount({ namespace: 'baseline', body: deviceShifuServiceAccount(device, 'baseline') });
    await kube.apps.createNamespacedDeployment({ namespace: 'baseline', body: deviceShifuDeployment(device, 'cm', { node, placedAt: '', reason: '' }, settings) });
    await kube.core.createNamespacedService({ namespace: 'baseline', body: deviceShifuService(device, 'baseline', 'ClusterIP') });
  });
  const baselineMs = performance.now() - t0;

  // the controller
  const controller = new ManagedProcess({
    name: 'controller', command: process.execPath, logFile: join(cluster.dir, 'logs', 'controller.log'),
    // the V8 flags of manifests/controller/deployment.yaml
    args: ['--max-old-space-size=80', '--max-semi-space-size=1', '--lite-mode', 'dist/bundle/controller.js', '--kubeconfig', kube.kubeconfigPath, '--port', '0', '--no-leader-election', '--workers', '8'],
  });
  controller.start();
  await waitFor('the controller to sync', async () => (await readFile(controller.spec.logFile, 'utf8')).includes('reconciling') ? true : undefined);
  const idleRss = await peakRssMb(controller.pid ?? 0);
  const t1 = performance.now();
  await inBatches(names, (name) => kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices',
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name }, spec: { protocol: 'HTTP', address: 'x:1', configMapName: 'thermometer-configmap-0.0.1' } } }));
  const createdMs = performance.now() - t1;
  await waitFor('every bundle', async () => (await deploymentCount(kube, 'deviceshifu')) >= DEVICES ? true : undefined,
    { timeoutMs: 120 * 60_000, intervalMs: 500 });
  const controllerMs = performance.now() - t1;
  const peak = await peakRssMb(controller.pid ?? 0);
  const writes = await writesPerDevice(controller.spec.logFile);
  await controller.stop();

  const objects = DEVICES * 5; // ServiceAccount, Role, RoleBinding, Deployment, Service
  console.log(`controller benchmark: ${DEVICES} EdgeDevices, ${NODES} KWOK nodes, ${CONCURRENCY} concurrent client writes`);
  console.log(`  baseline (bare loop, 3 writes/device):   ${(baselineMs / 1000).toFixed(1)} s, ${(DEVICES * 3 / (baselineMs / 1000)).toFixed(0)} objects/s`);
  console.log(`  EdgeDevices created by the client in:    ${(createdMs / 1000).toFixed(1)} s`);
  console.log(`  controller: creation → all bundles:      ${(controllerMs / 1000).toFixed(1)} s, ${(objects / (controllerMs / 1000)).toFixed(0)} bundle objects/s (+ status writes)`);
  console.log(`  ratio controller / baseline per object:  ${((controllerMs / objects) / (baselineMs / (DEVICES * 3))).toFixed(2)}`);
  console.log(`  controller API writes per device:        ${writes} (baseline: 3)`);
  console.log(`  controller RSS: idle ${idleRss.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (seed goal < 100 MB)`);
  console.log(`  machine load (1/5/15 min): before ${loadBefore}, after ${load()}`);
} finally {
  await cluster.stop();
}
