// Where REAR messages go (pure). A domain is the clusters behind one supernode. A plain node
// talks only to its supernode; a supernode talks to the members of its domain and to the
// supernodes (or catalogues) it knows. Requests carry the path they took; answers go back along it.
import { EdgeshifuError } from '../../../shared/errors.ts';

export interface Topology {
  readonly self: string;
  readonly domain: string;
  /** This cluster's supernode; itself when it is one. */
  readonly supernode: string;
  /** Supernode only: the clusters of its domain. */
  readonly members?: readonly string[];
  /** Supernode only: the supernode of each other domain it knows. */
  readonly supernodes?: ReadonlyMap<string, string>;
}

export const isSupernode = (t: Topology): boolean => t.supernode === t.self;

/**
 * Whom a supernode asks for LIST_FLAVOURS when it has nothing itself: for a member of its domain,
 * the other members and every supernode it knows; for another supernode, its members only (so a
 * request crosses at most two supernodes and never loops). Nobody already on the path.
 */
export function whomToAsk(t: Topology, path: readonly string[]): string[] {
  if (!isSupernode(t)) return [];
  const asker = path[0] ?? '';
  const fromMyDomain = (t.members ?? []).includes(asker);
  const others = fromMyDomain ? [...(t.members ?? []), ...(t.supernodes?.values() ?? [])] : [...(t.members ?? [])];
  return [...new Set(others)].filter((c) => c !== t.self && !path.includes(c)).sort();
}

/** The next hop of a RESERVE or PURCHASE towards `seller` of `sellerDomain`, or 'self' when this cluster sells. */
export function nextHop(t: Topology, seller: string, sellerDomain: string): string {
  if (seller === t.self) return 'self';
  if (!isSupernode(t)) return t.supernode;
  if (sellerDomain === t.domain) {
    if (!(t.members ?? []).includes(seller)) throw new EdgeshifuError('not-found', `${seller} is not a member of domain ${t.domain}`);
    return seller;
  }
  const theirs = t.supernodes?.get(sellerDomain);
  if (theirs === undefined) throw new EdgeshifuError('not-found', `no supernode known for domain ${sellerDomain}`);
  return theirs;
}

/**
 * Whom a flavour-gone notice goes to next: from a supernode, the supernodes it knows that are not
 * on the notice's path (never back along it); from a member (the seller), its supernode.
 */
export function goneTargets(t: Topology, path: readonly string[]): string[] {
  if (!isSupernode(t)) return path.includes(t.supernode) ? [] : [t.supernode];
  return [...new Set(t.supernodes?.values() ?? [])].filter((c) => c !== t.self && !path.includes(c)).sort();
}

/** Where an answer goes next: the last cluster on its path before this one, or undefined when this cluster asked. */
export function answerHop(self: string, path: readonly string[]): { to?: string; path: string[] } {
  const rest = path.at(-1) === self ? path.slice(0, -1) : [...path];
  return rest.length === 0 ? { path: [] } : { to: rest.at(-1), path: rest };
}
