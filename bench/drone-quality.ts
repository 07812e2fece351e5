// Placement quality of the DRONE auction against the best placement, found by enumeration
// (bench/drone-optimum.ts), on instances small enough to enumerate: 3, 5 and 10 clusters; jobs of
// 1–2 small components, or with one large component; all jobs at once, in bursts, or one at a
// time. Pure core in a simulated federation, no faults. Objective: jobs fully placed (the auction
// places whole jobs). A failed job is put to auction again as the origin's reconciler does it
// (controller/offload/origin-reconciler.ts: one re-auction at a time per origin), so the figures
// are given at the first try and after the retries.
// Jobs still failed after the retries are then submitted once more with reclaim (DroneCore.reclaim,
// the same core the controller runs): at most `--reclaim` (default DEFAULT_RECLAIM_MOVES, 3) placed,
// not launched components move to make room; `--reclaim off` leaves reclaim out (the figures before it).
// Usage: npm run bench:drone-quality [-- --instances 200] [--retries serial|together] [--reclaim off|0|1|2|3]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Timers } from '../controller/drone/agent-core.ts';
import type { Job } from '../controller/drone/model.ts';
import { DEFAULT_RECLAIM_MOVES } from '../controller/drone/core/state.ts';
import { SimFederation, prng, type ClusterSpec } from '../test/drone/support/network.ts';
import { optimum } from './drone-optimum.ts';

export type Mix = 'small' | 'one-large';
export type Arrival = 'together' | 'bursts' | 'one-by-one';
/** How an origin re-auctions its failed jobs: one at a time (serial), or all at the same moment. */
export type Retries = 'serial' | 'together';
export interface Scenario { readonly clusters: number; readonly jobs: number; readonly mix: Mix; readonly arrival: Arrival }
export interface Instance { readonly clusters: ClusterSpec[]; readonly jobs: Job[] }

/** The original instances: 3 clusters, 4 jobs of 1–2 small components, submitted together. */
export const BASE: Scenario = { clusters: 3, jobs: 4, mix: 'small', arrival: 'together' };

export function instance(scenario: Scenario, seed: number): Instance {
  const r = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const ids = Array.from({ length: scenario.clusters }, (_, i) => `c${String(i)}`);
  const clusters = ids.map((id) => ({ id, free: { cpu: int(0, 6) * 500, memory: int(0, 6) * 512 }, scalePercent: [50, 75, 100][int(0, 2)] ?? 100 }));
  const small = (k: number): Job['components'][number] => ({ name: `p${String(k)}`, image: 'i', resources: { cpu: int(1, 4) * 250, memory: int(1, 4) * 256 } });
  const large = (k: number): Job['components'][number] => ({ name: `p${String(k)}`, image: 'i', resources: { cpu: int(4, 8) * 250, memory: int(4, 8) * 256 } });
  const jobs = Array.from({ length: scenario.jobs }, (_, i): Job => ({
    app: `j${String(i)}`, origin: ids[int(0, ids.length - 1)] ?? 'c0',
    components: scenario.mix === 'small'
      ? Array.from({ length: int(1, 2) }, (_, k) => small(k))
      : [large(0), ...Array.from({ length: int(0, 1) }, (_, k) => small(k + 1))],
  }));
  return { clusters, jobs };
}

/** Groups of jobs submitted at the same moment; each group once the previous one has settled. */
function arrivals(jobs: readonly Job[], arrival: Arrival): Job[][] {
  if (arrival === 'together') return [[...jobs]];
  if (arrival === 'one-by-one') return jobs.map((j) => [j]);
  const groups: Job[][] = [];
  for (let i = 0; i < jobs.length; i += 3) groups.push(jobs.slice(i, i + 3));
  return groups;
}

const SETTLE_MS = 10_000;

function placed(fed: SimFederation, origin: string, app: string): boolean {
  return fed.outcomes().get(`${origin}/${app}`)?.[0]?.type === 'placed';
}

export interface Run { readonly mode: 'open' | 'sealed'; readonly seed: number; readonly arrival: Arrival; readonly retries: Retries; readonly timers?: Partial<Timers>; readonly reclaim?: number }

/** One retry round: every origin's failed jobs under a new app id, one at a time per origin (origins side by side) or all at once. */
function retryRound(fed: SimFederation, failed: readonly Job[], round: { readonly n: number; readonly retries: Retries; readonly reclaim?: boolean }, latest: Map<string, string>): void {
  const queues = new Map<string, Job[]>();
  for (const j of failed) queues.set(j.origin, [...(queues.get(j.origin) ?? []), j]);
  const resubmit = (j: Job): void => {
    const app = `${j.app}.r${String(round.n)}`;
    latest.set(j.app, app);
    if (round.reclaim === true) fed.reclaim({ ...j, app });
    else fed.submit({ ...j, app });
  };
  while ([...queues.values()].some((q) => q.length > 0)) {
    for (const q of queues.values()) q.splice(0, round.retries === 'serial' ? 1 : q.length).forEach(resubmit);
    fed.run(fed.now + SETTLE_MS);
  }
}

/** The auction's result: jobs placed at the first try, and after retry rounds (while one places something). */
export function auction(inst: Instance, run: Run): { first: number; retried: number; reclaimed: number; fed: SimFederation; placedJobs: Job[] } {
  const fed = new SimFederation(inst.clusters, { seed: run.seed, mode: run.mode, ...(run.timers === undefined ? {} : { timers: run.timers }), ...(run.reclaim === undefined ? {} : { reclaimMoves: run.reclaim }) });
  fed.start();
  fed.run(10);
  for (const group of arrivals(inst.jobs, run.arrival)) {
    for (const j of group) fed.submit(j);
    fed.run(fed.now + SETTLE_MS);
  }
  const latest = new Map(inst.jobs.map((j) => [j.app, j.app]));
  const done = (j: Job): boolean => placed(fed, j.origin, latest.get(j.app) ?? j.app);
  const first = inst.jobs.filter(done).length;
  for (let round = 1; round <= 3; round += 1) {
    const before = inst.jobs.filter(done).length;
    retryRound(fed, inst.jobs.filter((j) => !done(j)), { n: round, retries: run.retries }, latest);
    if (inst.jobs.filter(done).length === before) break;
  }
  const retried = inst.jobs.filter(done).length;
  // Then the jobs still failed with reclaim, one at a time per origin, up to three rounds while one places something.
  for (let round = 1; run.reclaim !== undefined && round <= 3; round += 1) {
    const before = inst.jobs.filter(done).length;
    retryRound(fed, inst.jobs.filter((j) => !done(j)), { n: 10 + round, retries: 'serial', reclaim: true }, latest);
    if (inst.jobs.filter(done).length === before) break;
  }
  return { first, retried, reclaimed: inst.jobs.filter(done).length, fed, placedJobs: inst.jobs.filter(done) };
}

export interface Quality { scenario: Scenario; retries: Retries; mode: 'open' | 'sealed'; instances: number; placed: number; retried: number; reclaimed: number; best: number; optimal: number; optimalBefore: number }

/** `timers`: the agents' timers other than the defaults (the benchmark's BENCH_TIMERS). */
/** `reclaim`: most moves per reclaim, for the jobs the retries left (undefined: no reclaim). */
export function placementQuality(count: number, timers?: Partial<Timers>, scenario: Scenario = BASE, options: { readonly retries?: Retries; readonly reclaim?: number } = {}): Quality[] {
  const { retries = 'serial', reclaim } = options;
  const cases = Array.from({ length: count }, (_, i) => {
    const inst = instance(scenario, i + 1);
    return { seed: i + 1, inst, best: optimum(inst.clusters, inst.jobs) };
  });
  return (['open', 'sealed'] as const).map((mode) => {
    let first = 0;
    let retried = 0;
    let reclaimed = 0;
    let optimalBefore = 0;
    let top = 0;
    let optimal = 0;
    for (const { seed, inst, best } of cases) {
      const a = auction(inst, { mode, seed, arrival: scenario.arrival, retries, ...(timers === undefined ? {} : { timers }), ...(reclaim === undefined ? {} : { reclaim }) });
      first += a.first;
      retried += a.retried;
      reclaimed += a.reclaimed;
      top += best;
      if (a.retried >= best) optimalBefore += 1;
      if (a.reclaimed >= best) optimal += 1;
    }
    return { scenario, retries, mode, instances: count, placed: first, retried, reclaimed, best: top, optimal, optimalBefore };
  });
}

/** One line of figures for a mode, as bench:drone and bench:drone-quality print it. */
export function qualityLine(q: Quality): string {
  const s = q.scenario;
  const ratio = (n: number): string => (n / q.best).toFixed(3);
  return `placement quality (${q.mode}, ${String(q.instances)} instances of ${String(s.clusters)} clusters and ${String(s.jobs)} jobs, ${s.mix}, ${s.arrival}): best ${String(q.best)} jobs; placed ${String(q.placed)} at the first try (×${ratio(q.placed)}), ${String(q.retried)} after ${q.retries} retries (×${ratio(q.retried)}, optimal in ${(100 * q.optimalBefore / q.instances).toFixed(0)}% of instances), ${String(q.reclaimed)} after reclaim (×${ratio(q.reclaimed)}, optimal in ${(100 * q.optimal / q.instances).toFixed(0)}%)`;
}

export const SCENARIOS: readonly Scenario[] = [
  BASE,
  { clusters: 3, jobs: 4, mix: 'one-large', arrival: 'together' },
  { clusters: 3, jobs: 6, mix: 'small', arrival: 'bursts' },
  { clusters: 5, jobs: 5, mix: 'small', arrival: 'together' },
  { clusters: 5, jobs: 5, mix: 'one-large', arrival: 'bursts' },
  { clusters: 5, jobs: 6, mix: 'small', arrival: 'one-by-one' },
  { clusters: 10, jobs: 6, mix: 'small', arrival: 'together' },
  { clusters: 10, jobs: 6, mix: 'one-large', arrival: 'bursts' },
];

const TOTALLED = ['placed', 'retried', 'reclaimed', 'best', 'instances', 'optimal', 'optimalBefore'] as const;
type Total = Record<typeof TOTALLED[number], number>;

function addUp(held: Total | undefined, q: Quality): Total {
  return Object.fromEntries(TOTALLED.map((f) => [f, (held?.[f] ?? 0) + q[f]])) as Total;
}

// `npm run bench:drone-quality`: the quality alone, with the agents' default timers
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { instances: { type: 'string', default: '200' }, retries: { type: 'string', default: 'serial' }, reclaim: { type: 'string', default: String(DEFAULT_RECLAIM_MOVES) } } });
  const retries: Retries = values.retries === 'together' ? 'together' : 'serial';
  const reclaim = values.reclaim === 'off' ? undefined : Number(values.reclaim);
  // Totals per federation size and over all rows, for each mode.
  const totals = new Map<string, Total>();
  for (const scenario of SCENARIOS) {
    const rows = placementQuality(Number(values.instances), undefined, scenario, { retries, ...(reclaim === undefined ? {} : { reclaim }) });
    for (const q of rows) console.log(qualityLine(q));
    for (const [q, key] of rows.flatMap((q) => [[q, `${String(scenario.clusters)} clusters, ${q.mode}`], [q, `all rows, ${q.mode}`]] as const)) totals.set(key, addUp(totals.get(key), q));
  }
  const pct = (n: number, of: number): string => `${(100 * n / of).toFixed(0)}%`;
  for (const [key, t] of totals) {
    console.log(`${key}: first try ×${(t.placed / t.best).toFixed(3)}, after ${retries} retries ×${(t.retried / t.best).toFixed(3)} (optimal ${pct(t.optimalBefore, t.instances)}), after reclaim ×${(t.reclaimed / t.best).toFixed(3)} (optimal ${pct(t.optimal, t.instances)})`);
  }
}
