// Why the auction loses jobs the optimum places (bench/drone-quality.ts's instances): each job the
// auction left unplaced, in an instance where it placed fewer than the optimum, is put in one class:
// - fits as is: it fits in the room the auction left (hard limits: each cluster's free room and its
//   offered slice), so the auction's own rules lost it (shares, the providers called, all at once);
// - fits after k moves: it fits once k of the placed components (k = 1..3) go elsewhere;
// - other jobs: it fits only if some placed job gives way (the optimum chose other jobs).
// It also gives the ceiling of a reclaim: the auction's placements, then each lost job in turn
// placed by moving at most 1 (or 2) placed components, chosen by enumeration (an oracle, not DRONE).
// `--reclaim k`: classify what is left after reclaim with at most k moves (as bench:drone-quality
// runs it) instead of after the retries; `--print`: each instance below the optimum, one line.
// `--ceiling off` leaves out the oracle's ceiling.
// Usage: npm run bench:drone-quality-losses [-- --instances 200] [--reclaim 2] [--print] [--ceiling off]
import { parseArgs } from 'node:util';
import type { Job } from '../controller/drone/model.ts';
import { fitsAll, optimum, placeAll, type Item } from './drone-optimum.ts';
import { SCENARIOS, auction, instance, type Instance, type Scenario } from './drone-quality.ts';

type Pinned = Item & { readonly at: string };
const MAX_MOVES = 3;

function subsets<T>(items: readonly T[], k: number, from = 0): T[][] {
  if (k === 0) return [[]];
  const out: T[][] = [];
  for (let i = from; i <= items.length - k; i += 1) for (const rest of subsets(items, k - 1, i + 1)) out.push([items[i] as T, ...rest]);
  return out;
}

/** The fewest placed components that must move for `job` to fit (0..MAX_MOVES), or undefined. */
function movesNeeded(inst: Instance, placed: readonly Pinned[], job: Job): number | undefined {
  const mine: Item[] = job.components.map((c) => ({ origin: job.origin, need: c.resources }));
  for (let k = 0; k <= Math.min(MAX_MOVES, placed.length); k += 1) {
    for (const moved of subsets(placed, k)) {
      const stay = placed.filter((p) => !moved.includes(p));
      if (fitsAll(inst.clusters, [...mine, ...moved], stay)) return k;
    }
  }
  return undefined;
}

/** Places `job` by moving at most `limit` of `placed` (updated in place); whether it could. */
function placeWithMoves(inst: Instance, placed: Pinned[], job: Job, limit: number): boolean {
  const mine: Item[] = job.components.map((c) => ({ origin: job.origin, need: c.resources }));
  for (let k = 0; k <= Math.min(limit, placed.length); k += 1) {
    for (const moved of subsets(placed, k)) {
      const stay = placed.filter((p) => !moved.includes(p));
      const at = placeAll(inst.clusters, [...moved, ...mine], stay);
      if (at === undefined) continue;
      placed.splice(0, placed.length, ...stay, ...moved.map((m, i) => ({ ...m, at: at[i] ?? m.at })), ...mine.map((m, i) => ({ ...m, at: at[moved.length + i] ?? '' })));
      return true;
    }
  }
  return false;
}

/** Jobs placed by the auction, then by an oracle reclaim of at most `limit` moves per lost job. */
function withReclaim(inst: Instance, run: { readonly mode: 'open' | 'sealed'; readonly seed: number; readonly scenario: Scenario }, limit: number): number {
  const a = auction(inst, { mode: run.mode, seed: run.seed, arrival: run.scenario.arrival, retries: 'serial' });
  const placedApps = new Set(a.placedJobs.map((j) => j.app));
  const placed: Pinned[] = [...a.fed.agents].flatMap(([id, agent]) => agent.hosted()
    .filter((h) => placedApps.has(h.app.replace(/\.r\d+$/, '')))
    .map((h) => ({ origin: h.origin, need: h.resources, at: id })));
  return a.placedJobs.length + inst.jobs.filter((j) => !placedApps.has(j.app)).filter((j) => placeWithMoves(inst, placed, j, limit)).length;
}

/** The class of each job the auction lost in one instance (none when it matched the optimum). */
function lossesOf(inst: Instance, mode: 'open' | 'sealed', seed: number, scenario: Scenario): string[] {
  const reclaim = values.reclaim === undefined ? undefined : Number(values.reclaim);
  const a = auction(inst, { mode, seed, arrival: scenario.arrival, retries: 'serial', ...(reclaim === undefined ? {} : { reclaim }) });
  const best = optimum(inst.clusters, inst.jobs);
  if ((reclaim === undefined ? a.retried : a.reclaimed) >= best) return [];
  const placedApps = new Set(a.placedJobs.map((j) => j.app));
  // a retried job runs under app `<app>.r<n>`
  const placed: Pinned[] = [...a.fed.agents].flatMap(([id, agent]) => agent.hosted()
    .filter((h) => placedApps.has(h.app.replace(/\.r\d+$/, '')))
    .map((h) => ({ origin: h.origin, need: h.resources, at: id })));
  const kinds = inst.jobs.filter((j) => !placedApps.has(j.app)).map((job) => {
    const k = movesNeeded(inst, placed, job);
    return k === undefined ? 'other jobs' : k === 0 ? 'fits as is' : `fits after ${String(k)} move${k === 1 ? '' : 's'}`;
  });
  if (values.print) {
    const jobs = inst.jobs.map((j) => `${j.app}@${j.origin}[${j.components.map((c) => `${String(c.resources.cpu)}/${String(c.resources.memory)}`).join(' ')}]${placedApps.has(j.app) ? '' : '(lost)'}`).join(' ');
    const clusters = inst.clusters.map((c) => `${c.id}:${String(c.free.cpu)}/${String(c.free.memory)}@${String(c.scalePercent)}%`).join(' ');
    console.log(`  ${mode} seed ${String(seed)}: placed ${String(a.placedJobs.length)} of best ${String(best)}; ${clusters}; ${jobs}; ${kinds.join(', ')}`);
  }
  return kinds;
}

/** Jobs placed with an oracle reclaim of at most `limit` moves, against the optimum, over every row. */
function ceiling(mode: 'open' | 'sealed', limit: number): number {
  let got = 0;
  let best = 0;
  for (const scenario of SCENARIOS) {
    for (let seed = 1; seed <= Number(values.instances); seed += 1) {
      const inst = instance(scenario, seed);
      best += optimum(inst.clusters, inst.jobs);
      got += withReclaim(inst, { mode, seed, scenario }, limit);
    }
  }
  return got / best;
}

const { values } = parseArgs({ options: { instances: { type: 'string', default: '200' }, reclaim: { type: 'string' }, print: { type: 'boolean', default: false }, ceiling: { type: 'string', default: 'on' } } });
const line = (counts: ReadonlyMap<string, number>): string => [...counts].sort().map(([k, n]) => `${k} ${String(n)}`).join(', ');
for (const mode of ['open', 'sealed'] as const) {
  const total = new Map<string, number>();
  for (const scenario of SCENARIOS) {
    const counts = new Map<string, number>();
    const kinds = Array.from({ length: Number(values.instances) }, (_, i) => lossesOf(instance(scenario, i + 1), mode, i + 1, scenario)).flat();
    for (const kind of kinds) {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      total.set(kind, (total.get(kind) ?? 0) + 1);
    }
    const s = scenario;
    const lost = [...counts.values()].reduce((a, b) => a + b, 0);
    console.log(`${mode}, ${String(s.clusters)} clusters, ${String(s.jobs)} jobs, ${s.mix}, ${s.arrival}: ${String(lost)} jobs lost in instances below the optimum; ${line(counts)}`);
  }
  console.log(`${mode}, all: ${line(total)}`);
  for (const limit of values.ceiling === 'off' ? [] : [0, 1, 2]) console.log(`${mode}, all, each lost job then placed by an oracle with at most ${String(limit)} move${limit === 1 ? '' : 's'}: ×${ceiling(mode, limit).toFixed(3)} of the optimum`);
}
