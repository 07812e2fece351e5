// REAR discovery benchmark: N member clusters in D domains, each domain behind a supernode of its
// own (D more clusters), every REAR agent on one aedes broker on 127.0.0.1 (in memory, as DRONE's
// benchmark runs its agents). Member c0 of domain 0 is the consumer; every other member sells a
// flavour. Each discovery goes c0 → its supernode → the members of its domain and every other
// supernode → their members, and back, with no cache (every discovery asks everyone: the cold
// case); the warm case keeps what came back for a minute, so after the first discovery the
// consumer's supernode answers from its peering-candidate cache. Baseline in the same run: a DRONE auction among the same N clusters (c0 the
// origin with no room, the others with room) for a job of two 500m/512Mi components, from
// submission to placed (every host ACKed), with DRONE's benchmark harness (bench/drone-group.ts).
// Figures: p50 and p99 of each, and their ratio. Run: npm run bench:rear
// BENCH_ROUNDS (default 50) discoveries and jobs per row; BENCH_ROWS e.g. "10:1,100:10".
// Then the intent → pod Running row (bench/rear/intent.ts): BENCH_INTENTS (default 10) Solvers
// through the real controllers on three control planes, against BENCH_BASELINE (default 10) plain
// Deployments on the provider; BENCH_ROWS= (empty) runs that row alone, BENCH_INTENTS=0 skips it.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { EmbeddedBroker } from '../../shared/bus/broker.ts';
import { BusClient } from '../../shared/bus/client.ts';
import { Keyring } from '../../shared/bus/signing.ts';
import { Market } from '../../controller/rear/market.ts';
import { rearCodec, type RearMessage } from '../../controller/rear/messages/index.ts';
import { RearNode } from '../../controller/rear/rear-node.ts';
import type { Topology } from '../../controller/rear/flows/routing.ts';
import { password, user } from '../../test/drone/support/brokers.ts';
import { partitionable, slice, terms } from '../../test/rear/fixtures.ts';
import { BenchGroup } from '../drone-group.ts';
import { intentRow, printIntentRow } from './intent.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50);
const ROWS = (process.env.BENCH_ROWS ?? '10:1,10:5,10:10,50:1,50:5,50:10,100:1,100:5,100:10').split(',').filter((r) => r !== '').map((r) => r.split(':').map(Number) as [number, number]);
const INTENTS = Number(process.env.BENCH_INTENTS ?? 10);
const BASELINE = Number(process.env.BENCH_BASELINE ?? 10);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Domain d: supernode sn<d> and the members c<i> with i mod D = d. */
function topologies(n: number, d: number): Map<string, Topology> {
  const out = new Map<string, Topology>();
  const sns = new Map(Array.from({ length: d }, (_, k) => [`domain-${k}`, `sn${k}`] as const));
  for (let k = 0; k < d; k += 1) {
    const members = Array.from({ length: n }, (_, i) => i).filter((i) => i % d === k).map((i) => `c${i}`);
    out.set(`sn${k}`, { self: `sn${k}`, domain: `domain-${k}`, supernode: `sn${k}`, members, supernodes: new Map([...sns].filter(([, sn]) => sn !== `sn${k}`)) });
    for (const m of members) out.set(m, { self: m, domain: `domain-${k}`, supernode: `sn${k}` });
  }
  return out;
}

async function rearRow(n: number, d: number, cacheTtlMs: number): Promise<{ p50: number; p99: number; found: number }> {
  const map = topologies(n, d);
  const ids = [...map.keys()];
  const broker = new EmbeddedBroker({ owner: 'bench', host: '127.0.0.1', port: 0, users: [...ids, 'bench'].map(user) });
  const { url } = await broker.start();
  const codec = rearCodec();
  const buses: Array<BusClient<RearMessage>> = [];
  const nodes = new Map<string, RearNode>();
  try {
    for (const [id, topology] of map) {
      const keyring = new Keyring({ peers: new Map(), require: false });
      const bus = new BusClient<RearMessage>({ url, cluster: id, username: id, password: password(id), keyring, broker }, codec);
      await bus.start();
      buses.push(bus);
      const sells = id.startsWith('c') && id !== 'c0';
      const market = sells ? new Market({ config: { ...partitionable, owner: { ...partitionable.owner, cluster: id, domain: topology.domain } }, terms, slice: () => slice, keyring }) : undefined;
      const node = new RearNode({ bus, topology, keyring, ...(market === undefined ? {} : { market }), cacheTtlMs, replyTimeoutMs: 10_000 });
      await node.start();
      nodes.set(id, node);
    }
    const consumer = nodes.get('c0');
    if (consumer === undefined) throw new Error('no consumer');
    const times: number[] = [];
    let found = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const t0 = performance.now();
      const flavours = await consumer.discover({ bounds: { cpu: { min: 1000 } } });
      times.push(performance.now() - t0);
      found = flavours.length;
    }
    return { p50: percentile(times, 50), p99: percentile(times, 99), found };
  } finally {
    for (const bus of buses) await bus.stop();
    await broker.stop();
  }
}

async function droneRow(n: number): Promise<{ p50: number; p99: number; failed: number }> {
  const ids = Array.from({ length: n }, (_, i) => `c${i}`);
  const group = new BenchGroup({ ids, hosted: ids, edges: [], mode: 'open', relays: false, maxHops: 1 });
  try {
    await group.start(await group.startBrokers());
    await group.waitAdverts(60_000);
    const result = await group.run(ROUNDS, 120);
    return { p50: percentile(result.place, 50), p99: percentile(result.place, 99), failed: result.failed };
  } finally {
    await group.stop();
  }
}

const drone = new Map<number, Awaited<ReturnType<typeof droneRow>>>();
console.log(`REAR discovery vs DRONE auction, ${ROUNDS} rounds per row, one aedes on 127.0.0.1`);
for (const [n, d] of ROWS) {
  if (!drone.has(n)) {
    const row = await droneRow(n);
    drone.set(n, row);
    console.log(`DRONE ${String(n).padStart(3)} clusters               load ${loadavg()[0]?.toFixed(2) ?? '?'}  placed p50 ${row.p50.toFixed(1)} ms  p99 ${row.p99.toFixed(1)} ms  (failed ${row.failed})`);
  }
  const base = drone.get(n);
  for (const [label, ttl] of [['cold', 0], ['warm', 60_000]] as const) {
    const rear = await rearRow(n, d, ttl);
    console.log(`REAR  ${String(n).padStart(3)} clusters ${String(d).padStart(2)} domains ${label}  load ${loadavg()[0]?.toFixed(2) ?? '?'}  discovery p50 ${rear.p50.toFixed(1)} ms  p99 ${rear.p99.toFixed(1)} ms  (${rear.found} flavours)  p50 ${(rear.p50 / (base?.p50 ?? Number.NaN)).toFixed(2)}× DRONE's`);
  }
}
if (INTENTS > 0) printIntentRow(await intentRow(INTENTS, BASELINE));
process.exit(0);
