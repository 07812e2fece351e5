// Decision time of reclaim (controller/drone/core/reclaim-decide.ts, pure) at 100 clusters: the
// same random offers decided with at most 1, 2 and 3 moves, interleaved, so the ratio to one move
// (the decision before multi-move reclaim) is measured in the same run. A nearly full federation:
// each cluster has 0–750m (and 0–768 MiB) left and hosts 0–6 movable components of 250m–1,000m;
// the job has 1–2 components of 500m–2,000m, which the room left can rarely hold as is, so most
// decisions search the moves (and those that find none search them all: the worst case).
// Usage: npm run bench:drone-quality-decide [-- --instances 400 --clusters 100]
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { decideReclaim, type ReclaimOffer } from '../controller/drone/core/reclaim-decide.ts';
import type { Component, Resources } from '../controller/drone/model.ts';
import { prng } from '../test/drone/support/network.ts';

const { values } = parseArgs({ options: { instances: { type: 'string', default: '400' }, clusters: { type: 'string', default: '100' } } });
const LIMITS = [1, 2, 3] as const;
const units = (n: number): Resources => ({ cpu: n * 250, memory: n * 256 });

function instance(seed: number, clusters: number): { job: { origin: string; components: Component[] }; offers: ReclaimOffer[] } {
  const r = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const offers = Array.from({ length: clusters }, (_, i): ReclaimOffer => {
    const free = units(int(0, 3));
    return {
      cluster: `c${String(i)}`, room: free, free,
      movable: Array.from({ length: int(0, 6) }, (_, k) => ({ origin: `c${String(int(0, clusters - 1))}`, app: `a${String(i)}-${String(k)}`, component: 'p0', resources: units(int(1, 4)) })),
    };
  });
  const components = Array.from({ length: int(1, 2) }, (_, k): Component => ({ name: `p${String(k)}`, image: 'i', resources: units(int(2, 8)) }));
  return { job: { origin: 'c0', components }, offers };
}

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
const times = new Map<number, number[]>(LIMITS.map((l) => [l, []]));
const outcomes = new Map<string, number>();
const n = Number(values.instances);
// A warm-up pass, so that the figures are of compiled code.
for (let seed = 1; seed <= 50; seed += 1) for (const limit of LIMITS) { const { job, offers } = instance(seed, Number(values.clusters)); decideReclaim(job, offers, limit); }
for (let seed = 1; seed <= n; seed += 1) {
  const { job, offers } = instance(1000 + seed, Number(values.clusters));
  for (const limit of LIMITS) {
    const start = performance.now();
    const d = decideReclaim(job, offers, limit);
    times.get(limit)?.push(performance.now() - start);
    const key = `limit ${String(limit)}: ${d === undefined ? 'no placement' : `${String(d.moves.length)} moves`}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
}
const one = times.get(1) ?? [];
for (const limit of LIMITS) {
  const t = times.get(limit) ?? [];
  const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
  console.log(`reclaim decision, ${values.clusters} clusters, at most ${String(limit)} move${limit === 1 ? '' : 's'}: p50 ${quantile(t, 0.5).toFixed(3)} ms, p99 ${quantile(t, 0.99).toFixed(3)} ms, max ${Math.max(...t).toFixed(3)} ms; total ×${(sum(t) / sum(one)).toFixed(2)} of one move`);
}
console.log([...outcomes].sort().map(([k, v]) => `${k} ${String(v)}`).join('; '));
