// Discovery through supernodes (pure). A node asks its supernode; the supernode answers from its
// own flavours, then from its peering-candidate cache, and only when both have nothing does it
// ask every supernode or catalogue it knows, caching what comes back until it expires. A domain
// is the set of clusters behind one supernode.
import { select, type Selector } from './selector.ts';
import type { Flavour } from './model.ts';

export interface CachedFlavour {
  readonly flavour: Flavour;
  /** Who answered with it (a supernode, or the provider itself). */
  readonly via: string;
  readonly expiresAt: number;
}

/** Peering candidates by flavour id. */
export type CandidateCache = ReadonlyMap<string, CachedFlavour>;

/** Caches an answer's flavours until `now + ttlMs`. */
export function remember(cache: CandidateCache, answer: { readonly flavours: readonly Flavour[]; readonly via: string }, now: number, ttlMs: number): CandidateCache {
  const { flavours, via } = answer;
  const next = new Map(prune(cache, now));
  for (const flavour of flavours) next.set(flavour.id, { flavour, via, expiresAt: now + ttlMs });
  return next;
}

export function prune(cache: CandidateCache, now: number): CandidateCache {
  if ([...cache.values()].every((c) => c.expiresAt > now)) return cache;
  return new Map([...cache].filter(([, c]) => c.expiresAt > now));
}

/** Forgets a flavour a provider said is gone (a not-found on RESERVE). */
export function forget(cache: CandidateCache, flavourId: string): CandidateCache {
  if (!cache.has(flavourId)) return cache;
  const next = new Map(cache);
  next.delete(flavourId);
  return next;
}

/** Forgets the flavours of `seller` a flavour-gone notice names (another cluster's flavours stay). */
export function forgetGone(cache: CandidateCache, seller: string, flavourIds: readonly string[]): CandidateCache {
  const gone = flavourIds.filter((id) => cache.get(id)?.flavour.owner.cluster === seller);
  if (gone.length === 0) return cache;
  const next = new Map(cache);
  for (const id of gone) next.delete(id);
  return next;
}

/**
 * Whether a notice (by key) is seen for the first time; the notices kept until `now + ttlMs` (a
 * cache entry it could concern is no older), so a notice reaching a supernode by two ways is passed on once.
 */
export function firstSight(seen: ReadonlyMap<string, number>, key: string, now: number, ttlMs: number): { seen: ReadonlyMap<string, number>; first: boolean } {
  const kept = new Map([...seen].filter(([, until]) => until > now));
  if (kept.has(key)) return { seen: kept, first: false };
  kept.set(key, now + ttlMs);
  return { seen: kept, first: true };
}

export type SupernodeAnswer =
  | { readonly source: 'own' | 'cache'; readonly flavours: Flavour[] }
  | { readonly source: 'ask'; readonly ask: string[] };

/**
 * The supernode's answer to LIST_FLAVOURS: its own flavours, else its cache, else the supernodes
 * to ask (never the one asking, nor a supernode already on the request's path: no loops).
 */
export interface SupernodeView {
  /** Its own flavours (the clusters of its domain that sell through it). */
  readonly own: readonly Flavour[];
  readonly cache: CandidateCache;
  /** Whom to ask when its own flavours and its cache have nothing (flows/routing.ts whomToAsk). */
  readonly known: readonly string[];
}

export function supernodeAnswer(view: SupernodeView, query: { readonly selector: Selector; readonly path: readonly string[] }, now: number): SupernodeAnswer {
  const { own, cache, known } = view;
  const { selector, path } = query;
  const mine = select(own, selector);
  if (mine.length > 0) return { source: 'own', flavours: mine };
  const cached = select([...prune(cache, now).values()].map((c) => c.flavour), selector);
  if (cached.length > 0) return { source: 'cache', flavours: cached };
  return { source: 'ask', ask: known.filter((s) => !path.includes(s)).sort() };
}

/** Merges the answers of the supernodes asked: one entry per flavour id, in id order. */
export function mergeAnswers(answers: readonly (readonly Flavour[])[]): Flavour[] {
  const byId = new Map<string, Flavour>();
  for (const list of answers) for (const f of list) byId.set(f.id, f);
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
