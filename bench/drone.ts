// DRONE benchmark: real aedes brokers on loopback, one per cluster, joined by relays
// (line and random topologies). The clusters (broker, relay, agent) run in BENCH_PROCESSES child
// processes, round-robin (bench/drone-worker.ts), so that one process is not the bottleneck; rows
// with "1 process" run them all in this process as the baseline. For each federation size: time
// from a job's advertisement to agreement (the origin sends its OffloadRequests) and to placement
// (every host ACKed), p50/p99 over many jobs, and messages per job (agent publishes and relay
// forwards). Baseline of the same run: one publish→deliver hop on one aedes broker. Anchor: the
// thesis (ch. 8) measured ≈4–5 ms for 3 nodes and ≈60 ms for 15 clusters. Placement quality: the
// auction against the best placement, by enumeration, on small instances (pure core, no broker).
// Run: npm run bench:drone   Bounded: each row stops after BENCH_JOBS jobs or BENCH_SECONDS s.
// BENCH_SIZES picks sizes, BENCH_ROWS picks rows (e.g. "15:random:sealed,100:random:sealed"),
// BENCH_BASELINE_SIZES the sizes that also get in-process rows (default 15,100); BENCH_QOS,
// BENCH_SIGNATURES=1, BENCH_TREE=0 (flooding), BENCH_FANOUT (providers called per round; 0: all,
// the thesis's broadcast), BENCH_TIMERS (JSON), BENCH_IN_PROCESS=0 (agent and relay reach their own
// broker over TCP) and BENCH_MULTICAST=0 (a message per recipient) vary the setup. BENCH_CPU_PROF=<dir>: a CPU
// profile of each child process (node --cpu-prof), written when it ends. BENCH_BUNDLE=1: the child
// processes run the esbuild bundle of bench/drone-worker.ts (`npm run build:bench-drone`, built as
// the image's bundle is), not TypeScript under tsx; BENCH_NODE_FLAGS: their node flags, variants
// separated by '|' ('' for none), each row with child processes run once per variant, side by side
// (`npm run bench:drone-bundle`: none, and the Dockerfile's NODE_FLAGS).
import { fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { EmbeddedBroker } from '../shared/bus/broker.ts';
import { broadcastTopic } from '../shared/bus/topics.ts';
import { droneBusClient } from '../controller/drone/bus.ts';
import type { Timers } from '../controller/drone/agent-core.ts';
import { droneCodec } from '../controller/drone/messages/index.ts';
import { password, user } from '../test/drone/support/brokers.ts';
import { prng } from '../test/drone/support/network.ts';
import { BenchGroup, type Counts, type GroupSpec, type RunResult } from './drone-group.ts';
import { placementQuality, qualityLine } from './drone-quality.ts';

const JOBS = Number(process.env.BENCH_JOBS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SIZES = (process.env.BENCH_SIZES ?? '2,3,5,10,15,30,50,100').split(',').map(Number);
const ROWS = process.env.BENCH_ROWS?.split(',').filter((r) => r !== '');
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? Math.min(availableParallelism(), 4));
const BASELINE_SIZES = (process.env.BENCH_BASELINE_SIZES ?? '15,100').split(',').filter((x) => x !== '').map(Number);
const QOS = process.env.BENCH_QOS === undefined ? undefined : (Number(process.env.BENCH_QOS) as 0 | 1);
const SIGNATURES = process.env.BENCH_SIGNATURES === '1';
const TREE = process.env.BENCH_TREE !== '0';
const FANOUT = process.env.BENCH_FANOUT === undefined ? undefined : Number(process.env.BENCH_FANOUT);
/** BENCH_IN_PROCESS=0: agents and relays reach their own broker over loopback TCP, as before 2026-11-23 (BusOptions.broker). */
const IN_PROCESS = process.env.BENCH_IN_PROCESS !== '0';
/** BENCH_MULTICAST=0: one message per recipient, as before 2026-11-23 (DroneAgentOptions.multicast). */
const MULTICAST = process.env.BENCH_MULTICAST !== '0';
/** Agent timers, JSON, e.g. {"batchMs":0}. */
const TIMERS = process.env.BENCH_TIMERS === undefined ? undefined : (JSON.parse(process.env.BENCH_TIMERS) as Partial<Timers>);
const BUNDLE = process.env.BENCH_BUNDLE === '1';
const FLAG_VARIANTS = (process.env.BENCH_NODE_FLAGS ?? '').split('|').map((v) => v.split(/\s+/).filter((f) => f !== ''));
const THESIS_MS: Readonly<Record<number, number>> = { 3: 4.5, 15: 60 };

type Topology = 'one broker' | 'line' | 'random';

function edges(n: number, topology: Topology, seed: number): Array<[string, string]> {
  const id = (i: number): string => `c${i}`;
  if (topology === 'one broker') return [];
  if (topology === 'line') return Array.from({ length: n - 1 }, (_, i) => [id(i), id(i + 1)]);
  const random = prng(seed);
  const out = new Set<string>();
  for (let i = 1; i < n; i += 1) out.add(`${Math.floor(random() * i)}-${i}`);
  for (let k = 0; k < Math.floor(n / 2); k += 1) {
    const a = Math.floor(random() * n);
    const b = Math.floor(random() * n);
    if (a !== b) out.add(`${Math.min(a, b)}-${Math.max(a, b)}`);
  }
  return [...out].map((e) => e.split('-').map((x) => id(Number(x))) as [string, string]);
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** p50 of one publish→deliver hop through one aedes broker on loopback. */
async function brokerHop(): Promise<number> {
  const broker = new EmbeddedBroker({ owner: 'c0', host: '127.0.0.1', port: 0, users: [user('c0'), user('c1')] });
  const { url } = await broker.start();
  const codec = droneCodec();
  const a = droneBusClient({ url, cluster: 'c0', username: 'c0', password: password('c0') }, codec);
  const b = droneBusClient({ url, cluster: 'c1', username: 'c1', password: password('c1') }, codec);
  await a.start();
  await b.start();
  const times: number[] = [];
  let arrived: (() => void) | undefined;
  await b.subscribe(['edgeshifu/v1/+/fed/#'], () => { arrived?.(); });
  for (let i = 0; i < 300; i += 1) {
    const t0 = performance.now();
    const got = new Promise<void>((resolve) => { arrived = resolve; });
    await a.publish(broadcastTopic('c0', 'slice-advert'), { kind: 'slice-advert', offered: { cpu: 1, memory: 1 }, seq: i + 1, ttlMs: 1000 });
    await got;
    times.push(performance.now() - t0);
  }
  await a.stop();
  await b.stop();
  await broker.stop();
  return percentile(times, 50);
}

interface Row { n: number; topology: Topology; mode: 'open' | 'sealed'; processes: number; flags: string[]; rssMb: number; load: number; jobs: number; failed: number; reasons: string[]; agreeP50: number; agreeP99: number; placeP50: number; placeP99: number; msgsPerJob: number; relayedPerJob: number; cpuMsPerJob: number; kindsPerJob: Record<string, number> }

/** What bench/drone.ts needs of a group, whether it runs here or in a child process. */
interface Group {
  startBrokers(): Promise<Record<string, string>>;
  start(urls: Record<string, string>): Promise<void>;
  waitAdverts(timeoutMs: number): Promise<void>;
  counts(): Promise<Counts>;
  run(jobs: number, seconds: number): Promise<RunResult>;
  stop(): Promise<void>;
}

function local(spec: GroupSpec): Group {
  const g = new BenchGroup(spec);
  return { startBrokers: () => g.startBrokers(), start: (urls) => g.start(urls), waitAdverts: (ms) => g.waitAdverts(ms), counts: () => Promise.resolve(g.counts()), run: (j, s) => g.run(j, s), stop: () => g.stop() };
}

/** A group in a child process (bench/drone-worker.ts), called over IPC. */
function remote(spec: GroupSpec, flags: readonly string[]): Group {
  const profile = process.env.BENCH_CPU_PROF === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF];
  const worker = BUNDLE ? new URL('../dist/bench/drone-worker.js', import.meta.url) : new URL('./drone-worker.ts', import.meta.url);
  const child = fork(fileURLToPath(worker), [], { execArgv: [...(BUNDLE ? [] : ['--import', 'tsx']), ...flags, ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.result);
  });
  child.on('exit', (code) => { for (const w of waiting.values()) w.reject(new Error(`a benchmark worker exited (${code})`)); waiting.clear(); });
  const call = <T>(method: string, ...args: unknown[]): Promise<T> => new Promise<T>((resolve, reject) => {
    next += 1;
    waiting.set(next, { resolve: resolve as (v: unknown) => void, reject });
    child.send({ id: next, method, args });
  });
  const init = call('init', spec);
  return {
    startBrokers: async () => { await init; return call('startBrokers'); },
    start: (urls) => call('start', urls),
    waitAdverts: (ms) => call('waitAdverts', ms),
    counts: () => call('counts'),
    run: (j, s) => call('run', j, s),
    stop: async () => {
      await call('stop');
      const gone = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
      child.disconnect();
      await gone;
    },
  };
}

async function total(groups: readonly Group[]): Promise<Counts> {
  const all = await Promise.all(groups.map((g) => g.counts()));
  const kinds: Record<string, number> = {};
  for (const c of all) for (const [k, v] of Object.entries(c.kinds)) kinds[k] = (kinds[k] ?? 0) + v;
  return all.reduce((s, c) => ({ msgs: s.msgs + c.msgs, relayed: s.relayed + c.relayed, cpuMs: s.cpuMs + c.cpuMs, rssMb: s.rssMb + c.rssMb, kinds }), { msgs: 0, relayed: 0, cpuMs: 0, rssMb: 0, kinds });
}

async function measure([n, topology, mode, processes, variant]: Plan): Promise<Row> {
  const flags = processes <= 1 ? [] : FLAG_VARIANTS[variant] ?? [];
  const ids = Array.from({ length: n }, (_, i) => `c${i}`);
  const relays = topology !== 'one broker';
  // Round-robin, so that the origin's neighbours and the clusters along every path spread over the processes.
  const count = relays ? Math.max(1, Math.min(processes, n)) : 1;
  const specs: GroupSpec[] = Array.from({ length: count }, (_, g) => ({ ids, hosted: ids.filter((_, i) => i % count === g), edges: edges(n, topology, n), mode, relays, maxHops: n, ...(QOS === undefined ? {} : { qos: QOS }), signatures: SIGNATURES, tree: TREE, ...(FANOUT === undefined ? {} : { fanout: FANOUT }), ...(TIMERS === undefined ? {} : { timers: TIMERS }), inProcess: IN_PROCESS, ...(MULTICAST ? {} : { multicast: false }) }));
  const groups = specs.map((spec) => (processes <= 1 ? local(spec) : remote(spec, flags)));
  try {
    const urls: Record<string, string> = {};
    for (const part of await Promise.all(groups.map((g) => g.startBrokers()))) Object.assign(urls, part);
    for (const g of groups) await g.start(urls);
    await Promise.all(groups.map((g) => g.waitAdverts(120_000)));
    const before = await total(groups);
    const load = loadavg()[0] ?? 0;
    const r = await (groups[0] as Group).run(JOBS, SECONDS);
    const after = await total(groups);
    return {
      n, topology, mode, processes: processes <= 1 ? 1 : groups.length, flags, rssMb: after.rssMb, load, jobs: r.jobs, failed: r.failed, reasons: r.reasons,
      agreeP50: percentile(r.agree, 50), agreeP99: percentile(r.agree, 99), placeP50: percentile(r.place, 50), placeP99: percentile(r.place, 99),
      msgsPerJob: (after.msgs - before.msgs) / Math.max(1, r.jobs), relayedPerJob: (after.relayed - before.relayed) / Math.max(1, r.jobs),
      cpuMsPerJob: (after.cpuMs - before.cpuMs) / Math.max(1, r.jobs),
      kindsPerJob: perJob(before.kinds, after.kinds, r.jobs),
    };
  } finally {
    for (const g of groups) await g.stop();
  }
}

/** Agent publishes per job by kind, two decimals. */
function perJob(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>, jobs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, count] of Object.entries(after)) {
    const v = Math.round((100 * (count - (before[kind] ?? 0))) / Math.max(1, jobs)) / 100;
    if (v !== 0) out[kind] = v;
  }
  return out;
}

/** size, topology, mode, processes, index in FLAG_VARIANTS */
type Plan = [number, Topology, 'open' | 'sealed', number, number];

function line(row: Row, hop: number): string {
  const thesis = THESIS_MS[row.n];
  const vsThesis = thesis === undefined ? '' : `  vs thesis ${thesis} ms: ×${(row.agreeP50 / thesis).toFixed(2)}`;
  const flags = row.processes <= 1 ? '' : ` [${BUNDLE ? 'bundle' : 'tsx'}${row.flags.length === 0 ? '' : ` ${row.flags.join(' ')}`}]`;
  return `${String(row.n).padStart(3)} clusters ${row.topology.padEnd(10)} ${row.mode.padEnd(6)} ${row.processes} proc${flags}  load ${row.load.toFixed(1)}  jobs ${String(row.jobs).padStart(3)} (failed ${row.failed})  agreement p50 ${row.agreeP50.toFixed(2)} ms p99 ${row.agreeP99.toFixed(2)} ms  placed p50 ${row.placeP50.toFixed(2)} ms p99 ${row.placeP99.toFixed(2)} ms  `
    + `msgs/job ${row.msgsPerJob.toFixed(1)} relayed/job ${row.relayedPerJob.toFixed(1)}  cpu/job ${row.cpuMsPerJob.toFixed(1)} ms  rss ${row.rssMb.toFixed(0)} MB  agreement/hop ×${(row.agreeP50 / hop).toFixed(1)}${vsThesis}`
    + `  (${Object.entries(row.kindsPerJob).map(([k, v]) => `${k} ${v}`).join(', ')})`
    + (row.reasons.length === 0 ? '' : `  failures: ${row.reasons.join(' | ')}`);
}

function plan(): Plan[] {
  type Shape = [number, Topology, 'open' | 'sealed', number];
  const all: Shape[] = [
    [3, 'one broker', 'open', 1], [3, 'one broker', 'sealed', 1], [3, 'line', 'open', PROCESSES],
    ...SIZES.flatMap((n): Shape[] => [
      [n, 'line', 'open', PROCESSES], [n, 'line', 'sealed', PROCESSES], [n, 'random', 'open', PROCESSES], [n, 'random', 'sealed', PROCESSES],
      ...(BASELINE_SIZES.includes(n) && PROCESSES > 1 ? [[n, 'line', 'open', 1], [n, 'line', 'sealed', 1], [n, 'random', 'open', 1], [n, 'random', 'sealed', 1]] as Shape[] : []),
    ]),
  ];
  const unique = all.filter((row, i) => all.findIndex((r) => r.join() === row.join()) === i);
  // each row with child processes once per flags variant, one after the other
  const rows = unique.flatMap((row): Plan[] => (row[3] <= 1 ? [[...row, 0]] : FLAG_VARIANTS.map((_, v): Plan => [...row, v])));
  if (ROWS === undefined) return rows;
  return rows.filter(([n, topology, mode, procs]) => ROWS.some((r) => {
    const [rn, rt, rm, rp] = r.split(':');
    return Number(rn) === n && rt === topology && rm === mode && (rp === undefined || Number(rp) === procs);
  }));
}

async function main(): Promise<void> {
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, ${availableParallelism()} cores, ${PROCESSES} processes, QoS ${QOS ?? 'default'}, signatures ${SIGNATURES ? 'on' : 'off'}, broadcasts ${TREE ? 'along a tree' : 'flooded'}, fanout ${FANOUT ?? 'default'}, timers ${JSON.stringify(TIMERS ?? {})}, own broker ${IN_PROCESS ? 'in memory' : 'over TCP'}, multicast ${MULTICAST ? 'on' : 'off'}`);
  const hop = await brokerHop();
  console.log(`baseline: one publish→deliver hop on aedes (loopback) p50 ${hop.toFixed(3)} ms`);
  const rows: Row[] = [];
  for (const p of plan()) {
    const [n, topology, mode, processes] = p;
    try {
      const row = await measure(p);
      rows.push(row);
      console.log(line(row, hop));
    } catch (err) {
      // An overloaded machine may not even let the federation start (every advert everywhere within the bound).
      console.log(`${String(n).padStart(3)} clusters ${topology.padEnd(10)} ${mode.padEnd(6)} ${processes} proc  load ${(loadavg()[0] ?? 0).toFixed(1)}  did not run: ${err instanceof Error ? err.message.split('\n')[0] ?? '' : String(err)}`);
    }
  }
  if (process.env.BENCH_QUALITY !== '0') {
    const quality = placementQuality(200, TIMERS);
    for (const q of quality) console.log(qualityLine(q));
  }
  console.log(JSON.stringify({ baselineHopMs: hop, rows }));
}

await main();
process.exit(0);
