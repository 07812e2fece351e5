// shifud benchmark (RSS under 50 MB, idle CPU under 1%): the bundled shifud
// (dist/bundle/shifud.js, as the image runs it) with the DaemonSet's V8 flags, on a private
// control plane with N TCP EdgeDevices (one mock device on loopback) at the default periods.
// Once every device is Reachable and a warm-up has passed, over the idle window: RSS (mean, max,
// end; private RssAnon), CPU %, and API writes per minute (EdgeNode and EdgeDevice changes seen
// by a watch) against samples taken. Beside it over the same window, with the same flags: a bare
// `node -e` (the baseline), bare node holding one TLS watch (node:https, no other code), and the
// floor of shifud itself — bare node with an HTTP server listening (shifud's /healthz) and one TLS watch.
// shifud runs in a memory cgroup of its own where the machine allows one, and its container working
// set (what the kubelet reports) is printed beside its RSS (bench/container-memory.ts says why they differ).
//   npm run bench:shifud -- [--devices 50] [--seconds 60] [--warmup 15] [--bundle dist/bundle/shifud.js] [--node-flags "..."]
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { API_VERSION, EDGE_DEVICE, EDGE_NODE, GROUP, VERSION } from '../shared/crds/resources.ts';
import { KubeClient } from '../shared/kube/client.ts';
import { describeContainerMemory, memoryCgroup, type MemoryCgroup } from './container-memory.ts';
import { floorEndpoint, HTTP_FLOOR, TLS_WATCH_FLOOR } from './floors.ts';
import { manifestNodeFlags } from './node-flags.ts';
import { Informer } from '../shared/kube/informer.ts';
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { startCluster } from '../test/support/controlplane/cluster.ts';
import { Kube } from '../test/support/cluster.ts';
import { installCrds } from '../test/support/crds.ts';
import { waitFor } from '../test/support/wait.ts';
import { MockDevice } from '../test/shifud/harness.ts';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '15' },
    bundle: { type: 'string', default: 'dist/bundle/shifud.js' },
    'node-flags': { type: 'string' },
  },
});
const DEVICES = Number(values.devices);
const SECONDS = Number(values.seconds);
const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ
const SAMPLE_SECONDS = 10; // shifud's default sampleIntervalSeconds
const NODE_NAME = 'edge-bench';

async function procStatus(pid: number): Promise<{ rss: number; anon: number }> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const mb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  return { rss: mb('VmRSS'), anon: mb('RssAnon') };
}

async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND; // utime + stime
}

interface Figures { readonly rssMean: number; readonly rssMax: number; readonly rssEnd: number; readonly anonEnd: number; readonly cpuPercent: number }

/** RSS every second and CPU over the window, for each process at once (same window for all). */
async function measure(pids: readonly number[], seconds: number): Promise<Figures[]> {
  const cpu0 = await Promise.all(pids.map(cpuSeconds));
  const t0 = performance.now();
  const rss: number[][] = pids.map(() => []);
  for (let s = 0; s < seconds; s += 1) {
    await delay(1000);
    const now = await Promise.all(pids.map(procStatus));
    now.forEach((st, i) => rss[i]?.push(st.rss));
  }
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = await Promise.all(pids.map(cpuSeconds));
  const end = await Promise.all(pids.map(procStatus));
  return pids.map((_, i) => {
    const series = rss[i] ?? [];
    return {
      rssMean: series.reduce((a, b) => a + b, 0) / series.length, rssMax: Math.max(...series), rssEnd: end[i]?.rss ?? NaN, anonEnd: end[i]?.anon ?? NaN,
      cpuPercent: ((cpu1[i] ?? 0) - (cpu0[i] ?? 0)) / elapsed * 100,
    };
  });
}

function start(args: readonly string[], env: NodeJS.ProcessEnv, cgroup?: MemoryCgroup): ChildProcess {
  const command = cgroup === undefined ? { command: NODE, args: [...args] } : cgroup.wrap(NODE, args);
  return spawn(command.command, command.args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Counts resourceVersion changes (writes that changed something) of a collection during the window. */
function countUpdates<T extends KubernetesObject>(client: KubeClient, path: string, fieldSelector?: string): { informer: Informer<T>; updates: () => number } {
  const informer = new Informer<T>({
    path, watch: client.watch, ...(fieldSelector === undefined ? {} : { fieldSelector }),
    list: () => client.request<KubernetesListObject<T>>('GET', path, { query: { fieldSelector } }),
  });
  let updates = 0;
  informer.on('update', () => { updates += 1; });
  informer.on('add', () => { updates += 1; });
  return { informer, updates: () => updates };
}

const f1 = (n: number): string => n.toFixed(1);


async function main(): Promise<void> {
  const flags = values['node-flags'] === undefined ? await manifestNodeFlags('manifests/shifud/daemonset.yaml') : values['node-flags'].split(/\s+/).filter(Boolean);
  const cluster = await startCluster({ name: 'shifud-bench' });
  const children: ChildProcess[] = [];
  const device = await new MockDevice().up();
  const client = KubeClient.fromKubeconfig(cluster.kubeconfigPath);
  let removeCgroup = (): Promise<void> => Promise.resolve();
  try {
    const kube = new Kube(cluster.kubeconfigPath);
    await installCrds(kube);
    await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
    for (let i = 0; i < DEVICES; i += 1) {
      await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: EDGE_DEVICE.plural, namespace: 'devices',
        body: { apiVersion: API_VERSION, kind: EDGE_DEVICE.kind, metadata: { name: `plc-${i}` }, spec: { protocol: 'TCP', address: device.address } } });
    }
    const devicesPath = `/apis/${GROUP}/${VERSION}/namespaces/devices/${EDGE_DEVICE.plural}`;
    const baseline = start([...flags, '-e', 'setInterval(() => {}, 1000)'], {});
    const floor = start([...flags, '-e', TLS_WATCH_FLOOR], { FLOOR_ENDPOINT: floorEndpoint(cluster.kubeconfigPath, devicesPath) });
    const healthFloor = start([...flags, '-e', HTTP_FLOOR + TLS_WATCH_FLOOR], { FLOOR_ENDPOINT: floorEndpoint(cluster.kubeconfigPath, devicesPath) });
    const cgroup = await memoryCgroup(`edgeshifu-bench-shifud-${String(process.pid)}`);
    if (typeof cgroup !== 'string') removeCgroup = () => cgroup.remove();
    const shifud = start([...flags, values.bundle], { KUBECONFIG: cluster.kubeconfigPath, NODE_NAME, EDGESHIFU_DEVICE_NAMESPACE: 'devices', EDGESHIFU_LOG_LEVEL: 'warn', EDGESHIFU_HEALTH_PORT: '0' }, typeof cgroup === 'string' ? undefined : cgroup);
    children.push(baseline, floor, healthFloor, shifud);
    await waitFor('every device Reachable from the node', async () => {
      const list = await client.request<{ items: Array<{ status?: { links?: Array<{ node: string }>; conditions?: Array<{ type: string; status: string }> } }> }>('GET', devicesPath);
      const seen = list.items.filter((d) => d.status?.links?.some((l) => l.node === NODE_NAME) === true && d.status.conditions?.some((c) => c.type === 'Reachable' && c.status === 'True') === true);
      return seen.length === DEVICES ? true : undefined;
    }, { timeoutMs: 180_000, intervalMs: 1000, abortIf: () => (shifud.exitCode === null ? undefined : `shifud exited with ${String(shifud.exitCode)}`) });
    await delay(Number(values.warmup) * 1000);

    const nodeWrites = countUpdates(client, `/apis/${GROUP}/${VERSION}/${EDGE_NODE.plural}`, `metadata.name=${NODE_NAME}`);
    const deviceWrites = countUpdates(client, devicesPath);
    await Promise.all([nodeWrites.informer.start(), deviceWrites.informer.start()]);
    const listed = nodeWrites.updates() + deviceWrites.updates();
    const [shifudFigures, baseFigures, floorFigures, healthFloorFigures] = await measure([shifud.pid ?? 0, baseline.pid ?? 0, floor.pid ?? 0, healthFloor.pid ?? 0], SECONDS);
    const writes = nodeWrites.updates() + deviceWrites.updates() - listed;
    await Promise.all([nodeWrites.informer.stop(), deviceWrites.informer.stop()]);
    if (shifudFigures === undefined || baseFigures === undefined || floorFigures === undefined || healthFloorFigures === undefined) throw new Error('no figures');

    console.log(`shifud benchmark: ${values.bundle} with "${flags.join(' ')}", Node ${process.version}, ${DEVICES} TCP EdgeDevices (probed every 30 s), samples every ${SAMPLE_SECONDS} s, ${SECONDS} s idle window after ${values.warmup} s warm-up`);
    console.log('process                          | RSS mean MB | RSS max MB | RSS end MB | private (RssAnon) MB | CPU %');
    const rows = [['shifud (bundle)', shifudFigures], ['bare node -e (baseline)', baseFigures], ['node + 1 TLS watch', floorFigures], ['node + HTTP server + TLS watch', healthFloorFigures]] as const;
    for (const [label, f] of rows) {
      console.log(`${label.padEnd(32)} | ${f1(f.rssMean).padStart(11)} | ${f1(f.rssMax).padStart(10)} | ${f1(f.rssEnd).padStart(10)} | ${f1(f.anonEnd).padStart(20)} | ${f.cpuPercent.toFixed(2)}`);
    }
    console.log(`RSS ÷ baseline: ${(shifudFigures.rssMean / baseFigures.rssMean).toFixed(2)} (mean); above bare node: ${f1(shifudFigures.rssMean - baseFigures.rssMean)} MB; above the TLS-watch floor: ${f1(shifudFigures.rssMean - floorFigures.rssMean)} MB; above the HTTP server + TLS watch floor: ${f1(shifudFigures.rssMean - healthFloorFigures.rssMean)} MB`);
    console.log(`shifud as a container (its own memory cgroup, read as the kubelet reads it, at the end of the window): ${typeof cgroup === 'string' ? cgroup : describeContainerMemory(await cgroup.read())}`);
    const minutes = SECONDS / 60;
    console.log(`API writes that changed an object: ${writes} in ${SECONDS} s = ${(writes / minutes).toFixed(1)}/min, against ${(SECONDS / SAMPLE_SECONDS).toFixed(0)} samples = ${(60 / SAMPLE_SECONDS).toFixed(1)}/min (ratio ${(writes / (SECONDS / SAMPLE_SECONDS)).toFixed(2)} writes per sample)`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await removeCgroup();
    client.close();
    await device.down();
    await cluster.stop();
  }
}

await main();
