// The reclaim decision (pure): where an arriving job's components go, and which placed components,
// at most `limit` of them, move where to make room, in an order in which each move fits its target
// when it is made. A function of the job and the set of offers alone: offers and what they hold
// are sorted first, so every cluster that holds the same offers, in whatever order they came,
// computes the same decision. A component the offers do not list as movable (launched, or sold
// capacity) is never moved, and none moves twice.
import { add, allows, fits, subtract, type Component, type Resources } from '../model.ts';
import type { Movable } from '../messages/reclaim-offer.ts';

export interface ReclaimOffer {
  readonly cluster: string;
  /** Offered slice not yet hosted (another origin's limit). */
  readonly room: Resources;
  /** Free capacity not yet hosted (the cluster's own limit). */
  readonly free: Resources;
  readonly movable: readonly Movable[];
}

export interface Move extends Movable {
  readonly from: string;
  readonly to: string;
}

export interface ReclaimDecision {
  readonly placement: Readonly<Record<string, string>>;
  /** In the order they are to be made: each fits its target once the ones before it are done. */
  readonly moves: readonly Move[];
}

/** Most moves any decision makes, whatever `limit` says: the search grows as candidates^k. */
export const MAX_RECLAIM_MOVES = 3;
/** Combinations of two or more moves are drawn from this many candidates (the lightest). */
export const MULTI_MOVE_CANDIDATES = 40;
/** Backtracking steps one decision may take; past it, no further combination is tried. */
export const SEARCH_BUDGET = 200_000;

interface Room { room: Resources; free: Resources }
interface Item { readonly origin: string; readonly need: Resources; readonly allowed: (cluster: string) => boolean }
type Candidate = Movable & { readonly from: string };

const weight = (r: Resources): number => r.cpu + r.memory + 100 * (r.pods ?? 0);
const movableKey = (m: Movable): string => `${m.origin}/${m.app}/${m.component}`;
const fitsAt = (item: Item, cluster: string, r: Room): boolean => item.allowed(cluster) && fits(item.need, r.free) && (item.origin === cluster || fits(item.need, r.room));

function take(r: Room, cluster: string, item: Pick<Item, 'origin' | 'need'>, sign: 1 | -1): void {
  const apply = sign === 1 ? subtract : add;
  r.free = apply(r.free, item.need);
  if (item.origin !== cluster) r.room = apply(r.room, item.need);
}

/** Counts backtracking steps against SEARCH_BUDGET (shared by every search of one decision). */
interface Budget { left: number }

/**
 * Where each item goes (in its order) within the rooms, or undefined; largest first, clusters by
 * id. After each choice every item still to place must fit somewhere on its own (forward check).
 */
function placeItems(rooms: ReadonlyMap<string, Room>, items: readonly Item[], budget: Budget): string[] | undefined {
  const order = items.map((_, i) => i).sort((x, y) => weight((items[y] as Item).need) - weight((items[x] as Item).need) || x - y);
  const clusters = [...rooms.keys()].sort();
  const at: string[] = [];
  const somewhere = (item: Item): boolean => clusters.some((c) => fitsAt(item, c, rooms.get(c) as Room));
  const visit = (k: number): boolean => {
    const index = order[k];
    if (index === undefined) return true;
    const item = items[index] as Item;
    for (const cluster of clusters) {
      const r = rooms.get(cluster) as Room;
      if (budget.left <= 0) return false;
      budget.left -= 1;
      if (!fitsAt(item, cluster, r)) continue;
      take(r, cluster, item, 1);
      at[index] = cluster;
      const ahead = order.slice(k + 1).every((i) => somewhere(items[i] as Item));
      const done = ahead && visit(k + 1);
      take(r, cluster, item, -1);
      if (done) return true;
    }
    return false;
  };
  return visit(0) ? at : undefined;
}

function roomsOf(offers: readonly ReclaimOffer[]): Map<string, Room> {
  return new Map(offers.map((o) => [o.cluster, { room: o.room, free: o.free }]));
}

/** Combinations of k of `n` indices, in lexicographic order. */
function* combinations(n: number, k: number, from = 0): Generator<number[]> {
  if (k === 0) {
    yield [];
    return;
  }
  for (let i = from; i <= n - k; i += 1) for (const rest of combinations(n, k - 1, i + 1)) yield [i, ...rest];
}

/** Every order of `items` (lexicographic by index), for the few moves of one decision. */
function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (let i = 0; i < items.length; i += 1) {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) yield [items[i] as T, ...rest];
  }
}

/**
 * The first order in which the moves can be made one after the other: a target admits the moved
 * component while the components still to leave it are there (make before break: the old host
 * lets go only after the target accepted).
 */
function executable(offers: readonly ReclaimOffer[], moves: readonly Move[]): Move[] | undefined {
  for (const order of permutations(moves)) {
    const rooms = roomsOf(offers);
    const ok = order.every((m) => {
      const to = rooms.get(m.to) as Room;
      const item = { origin: m.origin, need: m.resources };
      if (!fits(item.need, to.free) || (m.origin !== m.to && !fits(item.need, to.room))) return false;
      take(to, m.to, item, 1);
      take(rooms.get(m.from) as Room, m.from, item, -1);
      return true;
    });
    if (ok) return order;
  }
  return undefined;
}

/** The job and the moved candidates placed together, the candidates off their hosts; undefined when they do not fit. */
function tryMoves(offers: { readonly list: readonly ReclaimOffer[]; readonly byCluster: ReadonlyMap<string, ReclaimOffer> }, job: { readonly items: readonly Item[]; readonly components: readonly Component[] }, moved: readonly Candidate[], budget: Budget): ReclaimDecision | undefined {
  // The job did not fit as is, so it needs room on a host that the moves free: one of its
  // components must fit there (no copy of the rooms; most combinations stop here).
  budget.left -= 1;
  const freedHosts = [...new Set(moved.map((m) => m.from))];
  const freed = (cluster: string): Room | undefined => {
    const offer = offers.byCluster.get(cluster);
    if (offer === undefined) return undefined;
    const r = { room: offer.room, free: offer.free };
    for (const m of moved) if (m.from === cluster) take(r, cluster, { origin: m.origin, need: m.resources }, -1);
    return r;
  };
  if (!freedHosts.some((c) => { const r = freed(c); return r !== undefined && job.items.some((item) => fitsAt(item, c, r)); })) return undefined;
  const rooms = roomsOf(offers.list);
  for (const m of moved) take(rooms.get(m.from) as Room, m.from, { origin: m.origin, need: m.resources }, -1);
  // The job must fit in the room freed before the moved ones are placed again.
  if (placeItems(new Map([...rooms].map(([c, r]) => [c, { ...r }])), job.items, budget) === undefined) return undefined;
  const items: Item[] = [...moved.map((m) => ({ origin: m.origin, need: m.resources, allowed: (cluster: string) => cluster !== m.from })), ...job.items];
  const at = placeItems(rooms, items, budget);
  if (at === undefined) return undefined;
  const moves = executable(offers.list, moved.map((m, i) => ({ origin: m.origin, app: m.app, component: m.component, resources: m.resources, from: m.from, to: at[i] ?? '' })));
  if (moves === undefined) return undefined;
  return { placement: Object.fromEntries(job.components.map((c, i) => [c.name, at[moved.length + i] ?? ''])), moves };
}

/**
 * The job placed as is if it can be; else with one placed component moved, then two, up to
 * `limit` (at most MAX_RECLAIM_MOVES): combinations in order of the candidates, the lightest first
 * (then by origin, app, component and host), each never back to where it is. Undefined: no
 * combination of at most `limit` moves helps (or the search budget ran out first).
 */
export function decideReclaim(job: { readonly origin: string; readonly components: readonly Component[] }, unsorted: readonly ReclaimOffer[], limit: number): ReclaimDecision | undefined {
  const offers = [...unsorted].sort((a, b) => a.cluster.localeCompare(b.cluster));
  const budget: Budget = { left: SEARCH_BUDGET };
  const byCluster = new Map(offers.map((o) => [o.cluster, o]));
  const mine: Item[] = job.components.map((c) => ({ origin: job.origin, need: c.resources, allowed: (cluster) => allows(c, cluster) }));
  const direct = placeItems(roomsOf(offers), mine, budget);
  if (direct !== undefined) return { placement: Object.fromEntries(job.components.map((c, i) => [c.name, direct[i] ?? ''])), moves: [] };
  const candidates: Candidate[] = offers.flatMap((o) => o.movable.map((m) => ({ ...m, from: o.cluster })));
  candidates.sort((a, b) => weight(a.resources) - weight(b.resources) || movableKey(a).localeCompare(movableKey(b)) || a.from.localeCompare(b.from));
  for (let k = 1; k <= Math.min(limit, MAX_RECLAIM_MOVES); k += 1) {
    const pool = k === 1 ? candidates : candidates.slice(0, MULTI_MOVE_CANDIDATES);
    for (const picked of combinations(pool.length, k)) {
      if (budget.left <= 0) return undefined;
      const moved = picked.map((i) => pool[i] as Candidate);
      // A component listed by two hosts (mid-move) moves once at most.
      if (new Set(moved.map(movableKey)).size < moved.length) continue;
      const decision = tryMoves({ list: offers, byCluster }, { items: mine, components: job.components }, moved, budget);
      if (decision !== undefined) return decision;
    }
  }
  return undefined;
}
