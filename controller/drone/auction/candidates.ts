// Whom an origin calls to bid (messages per job must not grow with the federation,
// README.md "Targets"). The origin already holds every provider's advertised slice (fedSlices), so it asks
// only the providers whose slice can hold part of the app, best first, a few at a time, and asks
// more only when those cannot place it. Adverts are the only knowledge used: what each provider
// offers now, and how many relays its advert crossed.
import type { FedSlice } from '../fed-slices.ts';
import { allows, fits, sum, type Component, type Resources } from '../model.ts';

/** Providers called in an auction's first round (DroneConfig.fanout); each wider round calls as many again as are called already. */
export const DEFAULT_FANOUT = 4;

interface Scored {
  readonly cluster: string;
  /** Components of the app the advertised slice can hold, each on its own. */
  readonly holds: number;
  /** How many times the slice holds those components together (the advertised residual, in units of the app). */
  readonly headroom: number;
  readonly hops: number;
}

function headroom(offered: Resources, need: Resources): number {
  const cpu = need.cpu > 0 ? offered.cpu / need.cpu : Number.POSITIVE_INFINITY;
  const memory = need.memory > 0 ? offered.memory / need.memory : Number.POSITIVE_INFINITY;
  return Math.min(cpu, memory);
}

function score(slice: FedSlice, components: readonly Component[]): Scored | undefined {
  const holdable = components.filter((c) => allows(c, slice.cluster) && fits(c.resources, slice.offered));
  if (holdable.length === 0) return undefined;
  return { cluster: slice.cluster, holds: holdable.length, headroom: headroom(slice.offered, sum(holdable.map((c) => c.resources))), hops: slice.hops };
}

/**
 * Room on the votes' scale (1..100, against the roomiest slice): offers within a percent of each
 * other count as equal, and then the nearer provider is called first.
 */
function level(s: Scored, best: number): number {
  if (!Number.isFinite(best) || best <= 0) return Number.isFinite(s.headroom) ? 0 : 100;
  return Math.round((100 * Math.min(s.headroom, best)) / best);
}

/** Most components held, then the most room left (lightly loaded first, as the votes' utility), then the nearest, then the id. */
function before(a: Scored & { level: number }, b: Scored & { level: number }): number {
  if (a.holds !== b.holds) return b.holds - a.holds;
  if (a.level !== b.level) return b.level - a.level;
  if (a.hops !== b.hops) return a.hops - b.hops;
  return a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0;
}

/**
 * Up to `count` providers to call for `components`, best first: live slices (not `exclude`d)
 * that can hold at least one of them. Deterministic for the same slices.
 */
export function callList(slices: readonly FedSlice[], components: readonly Component[], exclude: ReadonlySet<string>, count: number): string[] {
  const scored = slices.filter((s) => !exclude.has(s.cluster)).map((s) => score(s, components)).filter((s) => s !== undefined);
  const best = Math.max(0, ...scored.map((s) => s.headroom));
  return scored.map((s) => ({ ...s, level: level(s, best) })).sort(before).slice(0, Math.max(0, count)).map((s) => s.cluster);
}

/** How many to call next: the first round `fanout`, then as many again as are called already (0: everyone at once). */
export function roundSize(fanout: number, called: number): number {
  if (fanout <= 0) return Number.POSITIVE_INFINITY;
  return Math.max(fanout, called);
}
