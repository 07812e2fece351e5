// DRONE benchmark (issue 7): real aedes brokers on loopback, one per cluster, joined by relays
// (line and random topologies), agents in this process. For each federation size: time from a
// job's advertisement to agreement (the origin sends its OffloadRequests) and to placement (every
// host ACKed), p50/p99 over many jobs, and messages per job (agent publishes and relay forwards).
// Baseline of the same run: one publish→deliver hop on one aedes broker. Anchor: the thesis
// (ch. 8) measured ≈4–5 ms for 3 nodes and ≈60 ms for 15 clusters. Placement quality: the
// auction against the best placement, by enumeration, on small instances (pure core, no broker).
// Run: npm run bench:drone   Bounded: each size stops after BENCH_JOBS jobs or BENCH_SECONDS s.
import { performance } from 'node:perf_hooks';
import { EmbeddedBroker } from '../shared/bus/broker.ts';
import { broadcastTopic } from '../shared/bus/topics.ts';
import { droneBusClient } from '../controller/drone/bus.ts';
import { droneCodec } from '../controller/drone/messages/index.ts';
import type { DroneEvent } from '../controller/drone/agent-core.ts';
import { startFederation, waitForAdverts, type FederatedCluster } from '../test/drone/support/federation.ts';
import { password, user } from '../test/drone/support/brokers.ts';
import { prng } from '../test/drone/support/network.ts';
import { placementQuality } from './drone-quality.ts';

const JOBS = Number(process.env.BENCH_JOBS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SIZES = (process.env.BENCH_SIZES ?? '2,5,10,15,30,50,100').split(',').map(Number);
const THESIS_MS: Readonly<Record<number, number>> = { 3: 4.5, 15: 60 };
const plenty = { cpu: 1_000_000, memory: 10_000_000 };

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

interface Row { n: number; topology: Topology; mode: 'open' | 'sealed'; jobs: number; failed: number; reasons: string[]; agreeP50: number; agreeP99: number; placeP50: number; placeP99: number; msgsPerJob: number; relayedPerJob: number }

async function shared(n: number, stops: Array<() => Promise<void> | void>): Promise<string> {
  const ids = Array.from({ length: n }, (_, i) => `c${i}`);
  const broker = new EmbeddedBroker({ owner: 'c0', host: '127.0.0.1', port: 0, users: ids.map(user) });
  const { url } = await broker.start();
  stops.push(() => broker.stop());
  return url;
}

function decision(cluster: FederatedCluster, app: string): Promise<DroneEvent> {
  return new Promise((resolve) => {
    const listener = (e: DroneEvent): void => {
      if ((e.type === 'placed' || e.type === 'failed') && e.app === app) {
        cluster.agent.off('decision', listener);
        resolve(e);
      }
    };
    cluster.agent.on('decision', listener);
  });
}

async function measure(n: number, topology: Topology, mode: 'open' | 'sealed'): Promise<Row> {
  const stops: Array<() => Promise<void> | void> = [];
  const ids = Array.from({ length: n }, (_, i) => `c${i}`);
  const url = topology === 'one broker' ? await shared(n, stops) : undefined;
  const agreedAt = new Map<string, number>();
  const clusters = await startFederation({
    ids, mode, edges: edges(n, topology, n), free: (id) => (id === 'c0' ? { cpu: 0, memory: 0 } : plenty), maxHops: n,
    relays: topology !== 'one broker', ...(url === undefined ? {} : { brokerUrl: () => url }),
    tap: (cluster, _topic, body) => { if (cluster === 'c0' && body.kind === 'offload-request' && !agreedAt.has(body.app)) agreedAt.set(body.app, performance.now()); },
  }, (fn) => { stops.push(fn); });
  try {
    await waitForAdverts(clusters, ids.slice(1), 120_000);
    const origin = clusters.get('c0');
    if (origin === undefined) throw new Error('no origin');
    const agree: number[] = [];
    const place: number[] = [];
    let failed = 0;
    const reasons = new Set<string>();
    const count = (): { msgs: number; relayed: number } => [...clusters.values()].reduce((s, c) => ({ msgs: s.msgs + c.agent.published, relayed: s.relayed + (c.relay?.forwarded ?? 0) }), { msgs: 0, relayed: 0 });
    const before = count();
    const deadline = performance.now() + SECONDS * 1000;
    let jobs = 0;
    for (; jobs < JOBS && performance.now() < deadline; jobs += 1) {
      const app = `job-${jobs}`;
      const done = decision(origin, app);
      const t0 = performance.now();
      origin.agent.submit({ app, origin: 'c0', components: [{ name: 'api', image: 'i', resources: { cpu: 500, memory: 512 } }, { name: 'db', image: 'i', resources: { cpu: 500, memory: 512 } }] });
      const outcome = await done;
      const t1 = performance.now();
      if (outcome.type === 'failed') {
        failed += 1;
        reasons.add(outcome.reason.replace(/job-\d+/g, 'job-N'));
      }
      else {
        place.push(t1 - t0);
        agree.push((agreedAt.get(app) ?? t1) - t0);
      }
    }
    const after = count();
    return {
      n, topology, mode, jobs, failed, reasons: [...reasons].slice(0, 3), agreeP50: percentile(agree, 50), agreeP99: percentile(agree, 99), placeP50: percentile(place, 50), placeP99: percentile(place, 99),
      msgsPerJob: (after.msgs - before.msgs) / Math.max(1, jobs), relayedPerJob: (after.relayed - before.relayed) / Math.max(1, jobs),
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

function line(row: Row, hop: number): string {
  const thesis = THESIS_MS[row.n];
  const vsThesis = thesis === undefined ? '' : `  vs thesis ${thesis} ms: ×${(row.agreeP50 / thesis).toFixed(2)}`;
  return `${String(row.n).padStart(3)} clusters ${row.topology.padEnd(10)} ${row.mode.padEnd(6)} jobs ${String(row.jobs).padStart(3)} (failed ${row.failed})  agreement p50 ${row.agreeP50.toFixed(2)} ms p99 ${row.agreeP99.toFixed(2)} ms  placed p50 ${row.placeP50.toFixed(2)} ms p99 ${row.placeP99.toFixed(2)} ms  `
    + `msgs/job ${row.msgsPerJob.toFixed(1)} relayed/job ${row.relayedPerJob.toFixed(1)}  agreement/hop ×${(row.agreeP50 / hop).toFixed(1)}${vsThesis}`
    + (row.reasons.length === 0 ? '' : `  failures: ${row.reasons.join(' | ')}`);
}

async function main(): Promise<void> {
  const hop = await brokerHop();
  console.log(`baseline: one publish→deliver hop on aedes (loopback) p50 ${hop.toFixed(3)} ms`);
  const rows: Row[] = [];
  const plan: Array<[number, Topology, 'open' | 'sealed']> = [
    [3, 'one broker', 'open'], [3, 'one broker', 'sealed'], [3, 'line', 'open'],
    ...SIZES.flatMap((n): Array<[number, Topology, 'open' | 'sealed']> => [[n, 'line', 'open'], [n, 'random', 'open'], [n, 'random', 'sealed']]),
  ];
  for (const [n, topology, mode] of plan) {
    const row = await measure(n, topology, mode);
    rows.push(row);
    console.log(line(row, hop));
  }
  const quality = placementQuality(200);
  for (const q of quality) console.log(`placement quality (${q.mode}, ${q.instances} instances of 3 clusters and 4 jobs): jobs placed ${q.placed} of best ${q.best} (×${(q.placed / q.best).toFixed(3)}), optimal in ${(100 * q.optimal / q.instances).toFixed(0)}% of instances`);
  console.log(JSON.stringify({ baselineHopMs: hop, rows, quality }));
}

await main();
process.exit(0);
