// Bursts after quiet: what the idle collection (shared/idle-collector.ts) costs the calls that come
// after it. deviceShifu with its own flags and the same without --expose-gc (no collector) run side
// by side, with the Go proxy as the baseline. Each cycle is a quiet spell long enough for the
// collector to act, then a burst of 1-s windows, the targets taking turns window by window, so the
// two deviceShifus see the same machine. A light burst grows the heap too little to be collected; a
// heavy one is collected, and the burst after it pays for optimising the request path again.
//   npm run bench:deviceshifu-bursts -- [--connections 1,16,64] [--cycles 3] [--quiet-seconds 13] [--windows 6]
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { memoryCgroup } from './container-memory.ts';
import { goBinary } from './deviceshifu/go-binary.ts';
import { loadRun, median, memoryOf } from './deviceshifu/measure.ts';
import { spawnReady, stopChild, type BenchContext, type Running, type Target } from './deviceshifu/target.ts';
import { deviceShifuDedicated, deviceShifuNoIdleGc } from './deviceshifu/targets/deviceshifu-dedicated.ts';
import { goProxy } from './deviceshifu/targets/go-proxy.ts';

const { values } = parseArgs({
  options: {
    bundle: { type: 'string', default: 'dist/bundle' },
    connections: { type: 'string', default: '1,16,64' },
    cycles: { type: 'string', default: '3' },
    'quiet-seconds': { type: 'string', default: '13' },
    windows: { type: 'string', default: '6' },
  },
});
const CONNECTIONS = values.connections.split(',').map(Number);
const CYCLES = Number(values.cycles);
const WINDOWS = Number(values.windows);
const TARGETS: readonly Target[] = [goProxy, deviceShifuDedicated, deviceShifuNoIdleGc];
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

/** One window's CPU ms per request, per target, and the requests it answered. */
interface Window { readonly cpu: ReadonlyMap<Target, number>; readonly requests: ReadonlyMap<Target, number> }
interface Cycle { readonly windows: Window[]; readonly workingSetBefore: ReadonlyMap<Target, number> }

async function cycle(loader: string, running: ReadonlyMap<Target, Running>, connections: number): Promise<Cycle> {
  await delay(Number(values['quiet-seconds']) * 1000);
  const workingSetBefore = new Map<Target, number>();
  for (const target of TARGETS) workingSetBefore.set(target, (await memoryOf(running.get(target)!)).container?.workingSet ?? NaN);
  const windows: Window[] = [];
  for (let w = 0; w < WINDOWS; w += 1) {
    const cpu = new Map<Target, number>();
    const requests = new Map<Target, number>();
    for (const target of TARGETS) {
      const r = await loadRun(loader, running.get(target)!, { connections, seconds: 1, warmup: 0 });
      cpu.set(target, r.cpuPerRequest);
      requests.set(target, r.total);
    }
    windows.push({ cpu, requests });
  }
  return { windows, workingSetBefore };
}

function print(connections: number, cycles: readonly Cycle[]): void {
  const [go, withGc, noGc] = TARGETS as [Target, Target, Target];
  const f = (n: number, d = 2): string => (Number.isFinite(n) ? n.toFixed(d) : '—');
  console.log(`\n${String(connections)} connection(s): CPU per request × the Go proxy's, window by window after ${values['quiet-seconds']} s of quiet (median of ${String(cycles.length)} cycles; cycle 1 follows start-up or the last burst of the connection count before)`);
  console.log(`window | ${withGc.name} | ${noGc.name}`);
  for (let w = 0; w < WINDOWS; w += 1) {
    const ratio = (t: Target): number => median(cycles.map((c) => (c.windows[w]?.cpu.get(t) ?? NaN) / (c.windows[w]?.cpu.get(go) ?? NaN)));
    console.log(`${String(w + 1).padStart(6)} | ${f(ratio(withGc)).padStart(withGc.name.length)} | ${f(ratio(noGc)).padStart(noGc.name.length)}`);
  }
  // CPU the burst spent over the collector-less deviceShifu's per-request cost, per cycle
  const extra = cycles.map((c) => c.windows.reduce((sum, w) => sum + ((w.cpu.get(withGc) ?? 0) - (w.cpu.get(noGc) ?? 0)) * (w.requests.get(withGc) ?? 0), 0));
  console.log(`extra CPU of the burst with the collector, ms per cycle: ${extra.map((e) => f(e, 0)).join(', ')}`);
  console.log(`working set before each burst, MiB: ${withGc.name} ${cycles.map((c) => f(c.workingSetBefore.get(withGc) ?? NaN, 1)).join(', ')}; ${noGc.name} ${cycles.map((c) => f(c.workingSetBefore.get(noGc) ?? NaN, 1)).join(', ')}`);
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-deviceshifu-bursts-'));
  const stops: Array<() => Promise<void>> = [];
  try {
    const [deviceBinary, loader] = await Promise.all([goBinary('device'), goBinary('load')]);
    const device = await spawnReady(deviceBinary, [], (l) => typeof l.address === 'string');
    stops.push(() => stopChild(device.child));
    const context: BenchContext = {
      device: String(device.line.address), path: 'read_value', dir, bundle: new URL(`../${values.bundle}/`, import.meta.url).pathname, kube: false,
      cgroup: (name) => memoryCgroup(`edgeshifu-bench-bursts-${name}-${String(process.pid)}`),
    };
    const running = new Map<Target, Running>();
    for (const target of TARGETS) {
      const r = await target.start(context);
      running.set(target, r);
      stops.push(() => r.stop());
    }
    console.log(`deviceShifu bursts after quiet, node ${process.version}, load average at start ${load()}`);
    for (const [target, r] of running) console.log(`  ${target.name}: ${r.describe}`);
    for (const connections of CONNECTIONS) {
      const cycles: Cycle[] = [];
      for (let c = 0; c < CYCLES; c += 1) cycles.push(await cycle(loader, running, connections));
      print(connections, cycles);
      console.log(`load average ${load()}`);
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => { console.error(err); });
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
