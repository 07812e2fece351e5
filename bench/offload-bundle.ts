// bench:offload with the controllers as the image runs them: each cluster's controller is its own
// process, `node [flags] dist/bundle/controller.js`, in a memory cgroup of its own (bench/
// container-memory.ts), once per set of node flags (BENCH_NODE_FLAGS, variants separated by `|`;
// `npm run bench:offload-bundle`: none, and the Dockerfile's NODE_FLAGS). Each variant gets a
// fresh pair of control planes: a (500m) offloads N two-component apps to b one at a time, as in
// bench/offload.ts; created → RUNNING is what this process's watch of a's
// DroneFederatedDeployments sees. Beside it: each controller's CPU per app, its working set and RSS.
// Usage: npm run bench:offload-bundle -- [--requests 100] [--baseline 20]
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { KubernetesListObject } from '@kubernetes/client-node';
import { endpointFromKubeconfig, KubeClient } from '../shared/kube/client.ts';
import { Informer } from '../shared/kube/informer.ts';
import { createLogger } from '../shared/log.ts';
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import { ManagedProcess } from '../test/support/controlplane/process.ts';
import { FAST } from '../test/support/controller.ts';
import { waitFor } from '../test/support/wait.ts';
import { APPS, createApp, prepareFederation, type Member } from '../test/offload/support.ts';
import type { DroneFederatedDeployment } from '../controller/offload/workload.ts';
import { describeContainerMemory, memoryCgroup, type ContainerMemory, type MemoryCgroup } from './container-memory.ts';
import { baseline, benchApp, benchContext, benchMembers, percentile, row } from './offload-common.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '100' }, baseline: { type: 'string', default: '20' } } });
const REQUESTS = Number(values.requests);
const BASELINE = Number(values.baseline);
const VARIANTS = (process.env.BENCH_NODE_FLAGS ?? '').split('|').map((v) => v.split(/\s+/).filter((f) => f !== ''));
const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${String(pid)}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND; // utime + stime
}

async function rssMb(pid: number): Promise<{ rss: number; peak: number }> {
  const text = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const mb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  return { rss: mb('VmRSS'), peak: mb('VmHWM') };
}

interface Running { readonly member: Member; readonly process: ManagedProcess; readonly cgroup?: MemoryCgroup }

function startController(m: Member, flags: readonly string[], dir: string, variant: number): Promise<Running> {
  return (async () => {
    const args = [...flags, 'dist/bundle/controller.js', '--kubeconfig', m.kube.kubeconfigPath, '--port', '0', ...FAST, '--no-leader-election', ...m.argv];
    const cgroup = await memoryCgroup(`edgeshifu-bench-offload-${m.id}-${String(variant)}-${String(process.pid)}`);
    const command = typeof cgroup === 'string' ? { command: NODE, args } : cgroup.wrap(NODE, args);
    if (typeof cgroup === 'string') console.error(`no working set for ${m.id}: ${cgroup}`);
    const child = new ManagedProcess({ name: `controller-${m.id}`, command: command.command, args: command.args, logFile: join(dir, `controller-${m.id}.log`) });
    child.start();
    return { member: m, process: child, ...(typeof cgroup === 'string' ? {} : { cgroup }) };
  })();
}

/** Phases of a's DroneFederatedDeployments as a watch sees them: name → phase → first time. */
async function watchPhases(a: Member): Promise<{ seen: Map<string, Map<string, number>>; stop: () => Promise<void> }> {
  const endpoint = endpointFromKubeconfig(a.kube.kubeconfigPath);
  const client = new KubeClient(endpoint);
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${APPS}/dronefederateddeployments`;
  const informer = new Informer<DroneFederatedDeployment>({ path, logger: createLogger('bench', { level: 'warn' }), watch: client.watch, list: () => client.request<KubernetesListObject<DroneFederatedDeployment>>('GET', path) });
  const seen = new Map<string, Map<string, number>>();
  const note = (d: DroneFederatedDeployment): void => {
    const phase = d.status?.phase;
    if (phase === undefined) return;
    const times = seen.get(d.metadata.name ?? '') ?? new Map<string, number>();
    if (!times.has(phase)) times.set(phase, performance.now());
    seen.set(d.metadata.name ?? '', times);
  };
  informer.on('add', note);
  informer.on('update', note);
  await informer.start();
  return { seen, stop: async () => { await informer.stop(); client.close(); } };
}

interface Figures { readonly flags: string; readonly total: number[]; readonly baseline: number[]; readonly loadBefore: string; readonly loadAfter: string; readonly perController: string[] }

async function variant(flags: readonly string[], index: number): Promise<Figures> {
  const { t, done } = benchContext();
  const loadBefore = load();
  const dir = join(tmpdir(), `edgeshifu-bench-offload-bundle-${String(process.pid)}-${String(index)}`);
  mkdirSync(dir, { recursive: true });
  const running: Running[] = [];
  try {
    const [a, b] = await prepareFederation(t, benchMembers(REQUESTS, BASELINE));
    if (a === undefined || b === undefined) throw new Error('no federation');
    for (const m of [a, b]) running.push(await startController(m, flags, dir, index));
    await waitFor('a to hear b (its Federation Connected)', async () => {
      const fed = await a.kube.custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'federations', name: 'b' }) as { status?: { conditions?: Array<{ type: string; status: string }> } };
      return fed.status?.conditions?.some((c) => c.type === 'Connected' && c.status === 'True') === true ? true : undefined;
    }, { timeoutMs: 60_000, intervalMs: 200 });
    const kubernetesOnly = await baseline(b, BASELINE);
    const watch = await watchPhases(a);
    const cpuBefore = await Promise.all(running.map((r) => cpuSeconds(r.process.pid ?? 0)));
    const total: number[] = [];
    for (let i = 0; i < REQUESTS; i += 1) {
      const name = `app-${String(i)}`;
      const start = performance.now();
      await createApp(a.kube, benchApp(name, i));
      const at = await waitFor(`${name} RUNNING`, () => watch.seen.get(name)?.get('RUNNING'), { timeoutMs: 120_000, intervalMs: 5 });
      total.push(at - start);
      if ((i + 1) % 25 === 0) console.error(`  [${flags.join(' ') || 'no flags'}] ${String(i + 1)} apps, last ${(at - start).toFixed(0)} ms, load ${load()}`);
    }
    await watch.stop();
    const perController: string[] = [];
    for (const [i, r] of running.entries()) {
      const pid = r.process.pid ?? 0;
      const cpu = (await cpuSeconds(pid)) - (cpuBefore[i] ?? 0);
      const memory: ContainerMemory | undefined = await r.cgroup?.read();
      const { rss, peak } = await rssMb(pid);
      perController.push(`controller ${r.member.id}: CPU ${(cpu * 1000 / REQUESTS).toFixed(0)} ms per app; ${memory === undefined ? 'no cgroup' : describeContainerMemory(memory)}; RSS ${rss.toFixed(1)} MiB (peak ${peak.toFixed(1)} MiB)`);
    }
    return { flags: flags.join(' ') || 'no flags', total, baseline: kubernetesOnly, loadBefore, loadAfter: load(), perController };
  } finally {
    for (const r of running) await r.process.stop();
    for (const r of running) await r.cgroup?.remove();
    await done();
  }
}

const results: Figures[] = [];
for (const [i, flags] of VARIANTS.entries()) results.push(await variant(flags, i));
console.log(`offloading from the bundle: ${String(REQUESTS)} two-component apps, a (500m) → b, one at a time; each variant on fresh control planes`);
for (const r of results) {
  console.log(`node flags: ${r.flags} (load ${r.loadBefore} → ${r.loadAfter})`);
  console.log(`  ${row('created → RUNNING (end to end)', r.total)}`);
  console.log(`  ${row('baseline: plain Deployment on b', r.baseline)}`);
  console.log(`  end-to-end p50 / baseline p50: ×${(percentile(r.total, 50) / percentile(r.baseline, 50)).toFixed(2)}`);
  for (const line of r.perController) console.log(`  ${line}`);
}
