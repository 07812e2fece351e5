// deviceShifu benchmark: one trivial Go device on loopback, called straight (direct), through a Go
// reverse proxy (net/http/httputil, the baseline deviceShifu aims at), through a bare node:http
// proxy with deviceShifu's flags (Node's floor), and through deviceShifu; more targets plug in as
// modules (bench/deviceshifu/targets.ts). Rounds interleave targets × connection counts, so every
// figure is compared with direct and the Go proxy measured next to it; medians over the rounds.
//   npm run bench:deviceshifu -- [--kube] [--rounds 3] [--seconds 5] [--connections 1,16,64]
//                                [--targets direct,Go proxy,...] [--node-flags "..."] [--idle-seconds 20]
//                                [--compare-bundle <dir>]
// --kube: deviceShifu reads its EdgeDevice from a private control plane (else standalone files), and
// the target "node proxy + watch" (its floor there: the proxy holding one HTTPS watch) joins.
// --compare-bundle <dir>: "deviceShifu (compare)" runs that build's bundle (another commit's
// `npm run build:bundle` output) with the same flags, so a change is measured as an A/B in one run.
// Load: a Go keep-alive load generator (bench/deviceshifu/go/load.go), N connections each sending
// one request after another. CPU per request: the gateway's user + system time (/proc/<pid>/stat)
// over the run, warm-up included, by every request it answered. Memory: each gateway runs in a
// memory cgroup of its own; its working set (usage minus inactive file, as the kubelet reads it,
// bench/container-memory.ts) idle (mean over the last seconds of the idle window), right after the
// load and settled (SETTLE_SECONDS later, once the idle collection has run), with RSS beside it.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { memoryCgroup } from './container-memory.ts';
import { goBinary } from './deviceshifu/go-binary.ts';
import { loadRun, meanMemory, median, memoryOf, type LoadResult, type Memory } from './deviceshifu/measure.ts';
import { spawnReady, stopChild, type BenchContext, type Running, type Target } from './deviceshifu/target.ts';
import { TARGETS } from './deviceshifu/targets.ts';

const SETTLE_SECONDS = 15;

const { values } = parseArgs({
  options: {
    kube: { type: 'boolean', default: false },
    bundle: { type: 'string', default: 'dist/bundle' },
    'compare-bundle': { type: 'string' },
    'node-flags': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '1,16,64' },
    targets: { type: 'string' },
    'idle-seconds': { type: 'string', default: '20' },
  },
});

const ROOT = new URL('../', import.meta.url);
const CONNECTIONS = values.connections.split(',').map(Number);
const ROUNDS = Number(values.rounds);
const chosen = values.targets?.split(',').map((s) => s.trim());
const targets: Target[] = TARGETS.filter((t) => (t.needs === undefined || (t.needs === 'kube' ? values.kube : values['compare-bundle'] !== undefined)) && (t.name === 'direct' || chosen === undefined || chosen.includes(t.name)));

const f = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const pad = (s: string, n: number): string => s.padStart(n);
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

interface Cell { readonly result: LoadResult; readonly addedP50: number; readonly addedP99: number }

/** results[target][connections] = one Cell per round */
type Results = Map<string, Map<number, Cell[]>>;

async function oneRound(loader: string, running: ReadonlyMap<Target, Running>, connections: number, results: Results): Promise<void> {
  let base: LoadResult | undefined;
  for (const target of targets) {
    const r = await loadRun(loader, running.get(target)!, { connections, seconds: Number(values.seconds), warmup: Number(values.warmup) });
    if (r.errors > 0) console.error(`warning: ${target.name} at ${String(connections)} connections: ${String(r.errors)} errors`);
    base ??= r;
    results.get(target.name)?.get(connections)?.push({ result: r, addedP50: r.p50 - base.p50, addedP99: r.p99 - base.p99 });
  }
}

async function rounds(loader: string, running: ReadonlyMap<Target, Running>): Promise<Results> {
  const results: Results = new Map(targets.map((t) => [t.name, new Map(CONNECTIONS.map((c) => [c, []]))]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const c of CONNECTIONS) {
      await oneRound(loader, running, c, results);
    }
    console.error(`round ${String(round)}/${String(ROUNDS)} done (load average ${load()})`);
  }
  return results;
}

function printThroughput(results: Results): void {
  console.log(`\nmedians of ${String(ROUNDS)} interleaved rounds, ${values.seconds} s each after ${values.warmup} s warm-up; × direct and × Go proxy from the same rounds`);
  console.log('conns | target              |    req/s | × direct | × Go proxy | p50 ms | +p50 ms | p99 ms | +p99 ms | CPU ms/req | CPU × Go proxy');
  for (const c of CONNECTIONS) {
    const of = (name: string, pick: (cell: Cell) => number): number => median(results.get(name)?.get(c)?.map(pick) ?? []);
    const directRps = of('direct', (x) => x.result.rps);
    const goRps = of('Go proxy', (x) => x.result.rps);
    const goCpu = of('Go proxy', (x) => x.result.cpuPerRequest);
    for (const target of targets) {
      const rps = of(target.name, (x) => x.result.rps);
      const cpu = of(target.name, (x) => x.result.cpuPerRequest);
      const cells = [pad(String(c), 5), target.name.padEnd(19), pad(f(rps, 0), 8), pad(f(rps / directRps), 8), pad(f(rps / goRps), 10),
        pad(f(of(target.name, (x) => x.result.p50), 3), 6), pad(f(of(target.name, (x) => x.addedP50), 3), 7), pad(f(of(target.name, (x) => x.result.p99), 3), 6),
        pad(f(of(target.name, (x) => x.addedP99), 3), 7), pad(f(cpu, 4), 10), pad(f(cpu / goCpu), 14)];
      console.log(cells.join(' | '));
    }
  }
}

const mem = (m: Memory | undefined): string => (m?.container === undefined ? '—' : f(m.container.workingSet, 1));

function printMemory(running: ReadonlyMap<Target, Running>, idle: ReadonlyMap<Target, Memory>, after: ReadonlyMap<Target, Memory>, settled: ReadonlyMap<Target, Memory>): void {
  console.log(`\nmemory, MiB: working set = the gateway's memory cgroup usage minus inactive file (what the kubelet reports); RSS beside it; "after" right after the last round, "settled" ${String(SETTLE_SECONDS)} s later`);
  console.log('target              | WS idle | WS after load | WS settled | WS peak usage | RSS idle | RSS after | RSS settled | devices | WS idle / device | WS after / device | WS settled / device');
  for (const target of targets) {
    const r = running.get(target);
    if (r === undefined || r.pids.length === 0) continue;
    const [i, a, s] = [idle.get(target), after.get(target), settled.get(target)];
    const perDevice = (m: Memory | undefined): string => (m?.container === undefined ? '—' : f(m.container.workingSet / r.devices, 1));
    console.log([target.name.padEnd(19), pad(mem(i), 7), pad(mem(a), 13), pad(mem(s), 10), pad(f(a?.container?.peak ?? NaN, 1), 13), pad(f(i?.rss ?? NaN, 1), 8), pad(f(a?.rss ?? NaN, 1), 9),
      pad(f(s?.rss ?? NaN, 1), 11), pad(String(r.devices), 7), pad(perDevice(i), 16), pad(perDevice(a), 17), pad(perDevice(s), 19)].join(' | '));
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-deviceshifu-'));
  const stops: Array<() => Promise<void>> = [];
  const cgroupNotes = new Set<string>();
  try {
    const [deviceBinary, loader] = await Promise.all([goBinary('device'), goBinary('load')]);
    const device = await spawnReady(deviceBinary, [], (l) => typeof l.address === 'string');
    stops.push(() => stopChild(device.child));
    const context: BenchContext = {
      device: String(device.line.address), path: 'read_value', dir, bundle: new URL(`${values.bundle}/`, ROOT).pathname, kube: values.kube,
      ...(values['compare-bundle'] === undefined ? {} : { compareBundle: new URL(`${values['compare-bundle']}/`, ROOT).pathname }),
      ...(values['node-flags'] === undefined ? {} : { nodeFlags: values['node-flags'].split(/\s+/).filter(Boolean) }),
      cgroup: async (name) => {
        const made = await memoryCgroup(`edgeshifu-bench-${name}-${String(process.pid)}`);
        if (typeof made === 'string') cgroupNotes.add(made);
        return made;
      },
    };
    const running = new Map<Target, Running>();
    for (const target of targets) {
      const r = await target.start(context);
      running.set(target, r);
      stops.push(() => r.stop());
    }
    console.log(`deviceShifu benchmark, node ${process.version}, load average at start ${load()}`);
    for (const [target, r] of running) console.log(`  ${target.name}: ${r.describe}`);
    for (const note of cgroupNotes) console.log(`  no working set: ${note}`);
    const idleSeconds = Number(values['idle-seconds']);
    await delay(Math.max(0, idleSeconds - 10) * 1000);
    const idleList = await Promise.all(targets.map((t) => meanMemory(running.get(t)!, Math.min(10, idleSeconds))));
    const idle = new Map(targets.map((t, i) => [t, idleList[i]!]));
    const results = await rounds(loader, running);
    const afterList = await Promise.all(targets.map((t) => memoryOf(running.get(t)!)));
    const after = new Map(targets.map((t, i) => [t, afterList[i]!]));
    // a kubelet reads the working set every 10-15 s: what it sees once the load is over
    await delay(SETTLE_SECONDS * 1000);
    const settledList = await Promise.all(targets.map((t) => memoryOf(running.get(t)!)));
    printThroughput(results);
    printMemory(running, idle, after, new Map(targets.map((t, i) => [t, settledList[i]!])));
    console.log(`\nload average at the end ${load()}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => { console.error(err); });
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
