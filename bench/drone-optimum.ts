// The most jobs of an instance that can be fully placed, by enumeration: each component on one
// cluster, a cluster's foreign work within its offered slice (scalePercent of its free room), all
// its work within its free room. Used by bench/drone-quality.ts as the yardstick of the auction.
import type { Job, Resources } from '../controller/drone/model.ts';
import type { ClusterSpec } from '../test/drone/support/network.ts';

export interface Item { readonly origin: string; readonly need: Resources }
interface Used { all: Resources; foreign: Resources }

const add = (a: Resources, b: Resources, sign = 1): Resources => ({ cpu: a.cpu + sign * b.cpu, memory: a.memory + sign * b.memory });

/** Whether every component of `jobs` can be placed at once (backtracking, largest first). */
function feasible(clusters: readonly ClusterSpec[], jobs: readonly Job[]): boolean {
  return fitsAll(clusters, jobs.flatMap((j) => j.components.map((c) => ({ origin: j.origin, need: c.resources }))), []);
}

/** Whether `items` can all be placed on top of `pinned` (components that stay where they are). */
export function fitsAll(clusters: readonly ClusterSpec[], items: readonly Item[], pinned: ReadonlyArray<Item & { readonly at: string }>): boolean {
  return placeAll(clusters, items, pinned) !== undefined;
}

/** Where each of `unsorted` goes (in its order) so that all fit on top of `pinned`, or undefined. */
export function placeAll(clusters: readonly ClusterSpec[], unsorted: readonly Item[], pinned: ReadonlyArray<Item & { readonly at: string }>): string[] | undefined {
  const order = unsorted.map((_, i) => i).sort((x, y) => size(unsorted[y]) - size(unsorted[x]));
  const items = order.map((i) => unsorted[i] as Item);
  const at: string[] = [];
  const used = new Map<string, Used>(clusters.map((c) => [c.id, { all: { cpu: 0, memory: 0 }, foreign: { cpu: 0, memory: 0 } }]));
  for (const p of pinned) {
    const u = used.get(p.at);
    if (u === undefined) continue;
    u.all = add(u.all, p.need);
    if (p.at !== p.origin) u.foreign = add(u.foreign, p.need);
  }
  const fits = (spec: ClusterSpec, u: Used, it: Item): boolean => {
    if (u.all.cpu + it.need.cpu > spec.free.cpu || u.all.memory + it.need.memory > spec.free.memory) return false;
    if (it.origin === spec.id) return true;
    return u.foreign.cpu + it.need.cpu <= (spec.free.cpu * spec.scalePercent) / 100 && u.foreign.memory + it.need.memory <= (spec.free.memory * spec.scalePercent) / 100;
  };
  const visit = (k: number): boolean => {
    const it = items[k];
    if (it === undefined) return true;
    const tried = new Set<string>();
    for (const spec of clusters) {
      const u = used.get(spec.id);
      if (u === undefined || !fits(spec, u, it)) continue;
      // two clusters in the same state (neither the origin) lead to the same placements
      const state = spec.id === it.origin ? spec.id : JSON.stringify([spec.free, spec.scalePercent, u]);
      if (tried.has(state)) continue;
      tried.add(state);
      u.all = add(u.all, it.need);
      if (spec.id !== it.origin) u.foreign = add(u.foreign, it.need);
      at[k] = spec.id;
      const ok = visit(k + 1);
      u.all = add(u.all, it.need, -1);
      if (spec.id !== it.origin) u.foreign = add(u.foreign, it.need, -1);
      if (ok) return true;
    }
    return false;
  };
  if (!visit(0)) return undefined;
  const out: string[] = [];
  order.forEach((i, k) => { out[i] = at[k] ?? ''; });
  return out;
}

function size(it: Item | undefined): number {
  return it === undefined ? 0 : it.need.cpu + it.need.memory;
}

/** The largest number of jobs placeable together (subsets tried from the largest down). */
export function optimum(clusters: readonly ClusterSpec[], jobs: readonly Job[]): number {
  const n = jobs.length;
  const bySize = Array.from({ length: 1 << n }, (_, mask) => mask).sort((a, b) => popcount(b) - popcount(a));
  for (const mask of bySize) {
    if (feasible(clusters, jobs.filter((_, i) => (mask & (1 << i)) !== 0))) return popcount(mask);
  }
  return 0;
}

function popcount(mask: number): number {
  let count = 0;
  for (let m = mask; m !== 0; m &= m - 1) count += 1;
  return count;
}
