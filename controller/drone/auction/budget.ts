// How much room a cluster has for one origin's components (README.md, "Resource slicing"): its own
// apps may use everything free; another cluster's apps get at most that origin's proportion share
// of the offered slice (weighted max-min among the origins asking now), and never more than the
// slice or what is free. Hosted work and the votes or sealed bids outstanding count as used.
import { ZERO, atLeastZero, fits, least as min, subtract, sum, type Resources } from '../model.ts';
import { proportion } from '../slicing/proportion.ts';

export interface Held {
  readonly origin: string;
  readonly app: string;
  readonly component: string;
  readonly resources: Resources;
}

export interface CapacityView {
  readonly self: string;
  /** Free for DRONE work: allocatable minus requests of the cluster's own pods. */
  readonly free: Resources;
  /** The federation's part of it (`scale` percent). */
  readonly offered: Resources;
  /** Accepted components (HostRequests and own placements), any origin. */
  readonly hosted: readonly Held[];
  /** Outstanding votes (open auction) and sealed bids. */
  readonly held: readonly Held[];
  /** What each other origin's open apps ask for in total. */
  readonly demand: ReadonlyMap<string, Resources>;
  /** Neighbour weights (Federation CR); 1 when absent. */
  readonly weights: ReadonlyMap<string, number>;
}

function total(items: readonly Held[], keep: (h: Held) => boolean): Resources {
  return sum(items.filter(keep).map((h) => h.resources));
}

/** What the hosted components add up to: all of them, those of other origins, and per origin. */
export interface HostedTotals {
  readonly self: string;
  readonly all: Resources;
  readonly foreign: Resources;
  readonly byOrigin: ReadonlyMap<string, Resources>;
}

// A view's hosted list is built once (core/view.ts) and read by every candidate of every bundle
// round, each time summed in full: a cluster hosting hundreds of components paid that on every
// vote. Memoised per list (lists are never changed once built).
const hostedTotals = new WeakMap<readonly Held[], HostedTotals>();

export function hostedOf(view: CapacityView): HostedTotals {
  const known = hostedTotals.get(view.hosted);
  if (known?.self === view.self) return known;
  const byOrigin = new Map<string, Held[]>();
  for (const h of view.hosted) {
    const items = byOrigin.get(h.origin);
    if (items === undefined) byOrigin.set(h.origin, [h]);
    else items.push(h);
  }
  const totals: HostedTotals = {
    self: view.self,
    all: total(view.hosted, () => true),
    foreign: total(view.hosted, (h) => h.origin !== view.self),
    byOrigin: new Map([...byOrigin].map(([origin, items]) => [origin, total(items, () => true)])),
  };
  hostedTotals.set(view.hosted, totals);
  return totals;
}

/** Deserved share of the offered slice per other origin. */
export function shares(view: CapacityView): Map<string, Resources> {
  const hosted = hostedOf(view);
  const origins = new Set([...view.demand.keys(), ...hosted.byOrigin.keys()].filter((o) => o !== view.self));
  const requests = [...origins].sort().map((cluster) => ({
    cluster,
    weight: view.weights.get(cluster) ?? 1,
    request: sum([view.demand.get(cluster) ?? ZERO, hosted.byOrigin.get(cluster) ?? ZERO]),
  }));
  return proportion(view.offered, requests);
}

/** Room left for `origin`'s components, given shares from `shares(view)`. */
export function roomFor(view: CapacityView, origin: string, deserved: ReadonlyMap<string, Resources>): Resources {
  const hosted = hostedOf(view);
  const all = (): boolean => true;
  const freeRoom = subtract(view.free, sum([hosted.all, total(view.held, all)]));
  if (origin === view.self) return atLeastZero(freeRoom);
  const foreign = (h: Held): boolean => h.origin !== view.self;
  const sliceRoom = subtract(view.offered, sum([hosted.foreign, total(view.held, foreign)]));
  const mine = (h: Held): boolean => h.origin === origin;
  const shareRoom = subtract(deserved.get(origin) ?? ZERO, sum([hosted.byOrigin.get(origin) ?? ZERO, total(view.held, mine)]));
  return atLeastZero(min(min(freeRoom, sliceRoom), shareRoom));
}

/** Room left in the slice (or, for own apps, in what is free) regardless of shares: what a vote's utility measures. */
export function residualFor(view: CapacityView, origin: string): Resources {
  const hosted = hostedOf(view);
  const all = (): boolean => true;
  const freeRoom = subtract(view.free, sum([hosted.all, total(view.held, all)]));
  if (origin === view.self) return atLeastZero(freeRoom);
  const foreign = (h: Held): boolean => h.origin !== view.self;
  return atLeastZero(min(freeRoom, subtract(view.offered, sum([hosted.foreign, total(view.held, foreign)]))));
}

/** What the normalised residual of a vote is measured against. */
export function capacityFor(view: CapacityView, origin: string): Resources {
  return origin === view.self ? view.free : view.offered;
}

/** What a slice advert announces: the part of the offered slice not yet hosted (and free). */
export function advertisedSlice(view: CapacityView): Resources {
  const hosted = hostedOf(view);
  return atLeastZero(min(subtract(view.offered, hosted.foreign), subtract(view.free, hosted.all)));
}

/** Whether a component may be accepted for `origin` now: hard limits only (slice and free). */
export function admissible(view: CapacityView, origin: string, need: Resources): boolean {
  // fits: cpu, memory and pods (model.ts)
  const hosted = hostedOf(view);
  if (!fits(need, subtract(view.free, hosted.all))) return false;
  if (origin === view.self) return true;
  return fits(need, subtract(view.offered, hosted.foreign));
}
