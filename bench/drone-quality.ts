// Placement quality of the DRONE auction against the best placement, found by enumeration, on
// instances small enough to enumerate (3 clusters, 4 jobs of 1–2 components). Pure core in a
// simulated federation, no faults. Objective: jobs fully placed (the auction places whole jobs).
import { pathToFileURL } from 'node:url';
import type { Timers } from '../controller/drone/agent-core.ts';
import type { Job } from '../controller/drone/model.ts';
import { SimFederation, prng, type ClusterSpec } from '../test/drone/support/network.ts';

interface Instance { readonly clusters: ClusterSpec[]; readonly jobs: Job[] }

function instance(seed: number): Instance {
  const r = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const clusters = ['c0', 'c1', 'c2'].map((id) => ({ id, free: { cpu: int(0, 6) * 500, memory: int(0, 6) * 512 }, scalePercent: [50, 75, 100][int(0, 2)] ?? 100 }));
  const jobs = Array.from({ length: 4 }, (_, i): Job => ({
    app: `j${i}`, origin: `c${int(0, 2)}`,
    components: Array.from({ length: int(1, 2) }, (_, k) => ({ name: `p${k}`, image: 'i', resources: { cpu: int(1, 4) * 250, memory: int(1, 4) * 256 } })),
  }));
  return { clusters, jobs };
}

/** Most jobs fully placeable: each component on one cluster, foreign work within the slice, all within free. */
function best(inst: Instance): number {
  const items = inst.jobs.flatMap((j, ji) => j.components.map((c) => ({ ji, origin: j.origin, need: c.resources })));
  const ids = inst.clusters.map((c) => c.id);
  let top = 0;
  const used = new Map(ids.map((id) => [id, { all: { cpu: 0, memory: 0 }, foreign: { cpu: 0, memory: 0 } }]));
  const placed: Array<string | undefined> = [];
  const fits = (id: string, origin: string, need: { cpu: number; memory: number }): boolean => {
    const spec = inst.clusters.find((c) => c.id === id);
    const u = used.get(id);
    if (spec === undefined || u === undefined) return false;
    if (u.all.cpu + need.cpu > spec.free.cpu || u.all.memory + need.memory > spec.free.memory) return false;
    if (origin === id) return true;
    return u.foreign.cpu + need.cpu <= (spec.free.cpu * spec.scalePercent) / 100 && u.foreign.memory + need.memory <= (spec.free.memory * spec.scalePercent) / 100;
  };
  const score = (): number => inst.jobs.filter((_, ji) => items.every((it, k) => it.ji !== ji || placed[k] !== undefined)).length;
  const visit = (k: number): void => {
    if (k === items.length) { top = Math.max(top, score()); return; }
    const it = items[k];
    if (it === undefined) return;
    placed[k] = undefined;
    visit(k + 1);
    for (const id of ids) {
      if (!fits(id, it.origin, it.need)) continue;
      const u = used.get(id);
      if (u === undefined) continue;
      u.all = { cpu: u.all.cpu + it.need.cpu, memory: u.all.memory + it.need.memory };
      if (id !== it.origin) u.foreign = { cpu: u.foreign.cpu + it.need.cpu, memory: u.foreign.memory + it.need.memory };
      placed[k] = id;
      visit(k + 1);
      placed[k] = undefined;
      u.all = { cpu: u.all.cpu - it.need.cpu, memory: u.all.memory - it.need.memory };
      if (id !== it.origin) u.foreign = { cpu: u.foreign.cpu - it.need.cpu, memory: u.foreign.memory - it.need.memory };
    }
  };
  visit(0);
  return top;
}

function auction(inst: Instance, mode: 'open' | 'sealed', seed: number, timers?: Partial<Timers>): number {
  const fed = new SimFederation(inst.clusters, { seed, mode, ...(timers === undefined ? {} : { timers }) });
  fed.start();
  fed.run(10);
  for (const j of inst.jobs) fed.submit(j);
  fed.run(10_000);
  return [...fed.outcomes().values()].filter((events) => events[0]?.type === 'placed').length;
}

export interface Quality { mode: 'open' | 'sealed'; instances: number; placed: number; best: number; optimal: number }

/** `timers`: the agents' timers other than the defaults (the benchmark's BENCH_TIMERS). */
export function placementQuality(count: number, timers?: Partial<Timers>): Quality[] {
  return (['open', 'sealed'] as const).map((mode) => {
    let placed = 0;
    let top = 0;
    let optimal = 0;
    for (let s = 1; s <= count; s += 1) {
      const inst = instance(s);
      const b = best(inst);
      const a = auction(inst, mode, s, timers);
      placed += a;
      top += b;
      if (a >= b) optimal += 1;
    }
    return { mode, instances: count, placed, best: top, optimal };
  });
}

/** One line of figures for a mode, as bench:drone and bench:drone-quality print it. */
export function qualityLine(q: Quality): string {
  return `placement quality (${q.mode}, ${String(q.instances)} instances of 3 clusters and 4 jobs): jobs placed ${String(q.placed)} of best ${String(q.best)} (×${(q.placed / q.best).toFixed(3)}), optimal in ${(100 * q.optimal / q.instances).toFixed(0)}% of instances`;
}

// `npm run bench:drone-quality`: the quality alone, with the agents' default timers
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const q of placementQuality(200)) console.log(qualityLine(q));
}
