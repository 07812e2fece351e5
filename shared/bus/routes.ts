// Where a relay sends what (pure; relay.ts does the I/O). Broadcasts go along a tree per origin
// instead of being flooded over every link: each relay learns, per origin, the neighbour that
// origin's traffic first came from (its parent; the same reverse path directed messages take),
// and tells each neighbour which origins it already gets from someone else ("prune" list). A relay
// forwards an origin's broadcast to a neighbour unless that neighbour's current list names the
// origin. The lists are complete state, sent again on every change and periodically, and expire,
// so a lost or stale list only costs extra copies, never a lost route for long:
// - a neighbour with no list, or an expired one, gets everything (as plain flooding);
// - when the link to its parent goes down, a relay forgets the routes through it, its lists no
//   longer prune those origins, and its neighbours send them again until it learns a new parent;
// - when its parent's list stops naming an origin (the parent lost its own route, or routes
//   through this relay), the relay forgets that route too, so a broken branch never waits on itself.
// Lists on one link arrive in order with the traffic (one MQTT connection), so a list that omits
// an origin and arrives after that origin's traffic was forwarded is news, not an old list.

export interface RelayRoutesOptions {
  readonly self: string;
  /** How long a neighbour's prune list holds without being sent again. */
  readonly ttlMs: number;
}

interface Route { readonly via: string }
interface PruneList { readonly origins: ReadonlySet<string>; readonly expiresAt: number }

export class RelayRoutes {
  private readonly options: RelayRoutesOptions;
  private readonly routes = new Map<string, Route>();
  private readonly lists = new Map<string, PruneList>();

  constructor(options: RelayRoutesOptions) {
    this.options = options;
  }

  /** The neighbour towards `origin` (its traffic's first way in), if known. */
  parent(origin: string): string | undefined {
    return this.routes.get(origin)?.via;
  }

  /** Traffic of `origin` came in from neighbour `via`; true when this set a new route (the lists changed). */
  learn(origin: string, via: string): boolean {
    if (origin === this.options.self || this.routes.has(origin)) return false;
    this.routes.set(origin, { via });
    return true;
  }

  /** The link to `neighbour` went down or was removed: routes through it and its list go; true when routes changed. */
  linkDown(neighbour: string): boolean {
    this.lists.delete(neighbour);
    let changed = false;
    for (const [origin, route] of this.routes) {
      if (route.via !== neighbour) continue;
      this.routes.delete(origin);
      changed = true;
    }
    return changed;
  }

  /** What this relay tells `neighbour`: the origins it gets from another neighbour (or that are itself, which it never needs). */
  pruneFor(neighbour: string): string[] {
    const out = [this.options.self];
    for (const [origin, route] of this.routes) if (route.via !== neighbour && origin !== neighbour) out.push(origin);
    return out.sort();
  }

  /** `neighbour`'s list arrived; true when routes through it were dropped because it no longer has them. */
  received(neighbour: string, origins: readonly string[], now: number): boolean {
    const set = new Set(origins);
    this.lists.set(neighbour, { origins: set, expiresAt: now + this.options.ttlMs });
    let changed = false;
    for (const [origin, route] of this.routes) {
      // A parent that does not say it gets `origin` elsewhere has no live way to it but through here.
      if (route.via !== neighbour || origin === neighbour || set.has(origin)) continue;
      this.routes.delete(origin);
      changed = true;
    }
    return changed;
  }

  /** Whether a broadcast of `origin` goes to `neighbour`: unless its current list says it gets it elsewhere. */
  forwards(origin: string, neighbour: string, now: number): boolean {
    const list = this.lists.get(neighbour);
    return list === undefined || list.expiresAt <= now || !list.origins.has(origin);
  }
}

/**
 * Which recipients of a multi-recipient message go over which link: each recipient towards its
 * next hop (`nextHop`, the learned route); recipients without one go over every link in `links`
 * (as a directed message without a route does), with what those links carry already. A recipient
 * whose next hop is not in `links` (the way it came, or a link that is down) is not sent on.
 * Links in the order of `links`, recipients in the order given.
 */
export function splitByNextHop(recipients: readonly string[], nextHop: (recipient: string) => string | undefined, links: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const unrouted: string[] = [];
  for (const r of recipients) {
    const via = nextHop(r);
    if (via === undefined) unrouted.push(r);
    else if (links.includes(via)) out.set(via, [...(out.get(via) ?? []), r]);
  }
  if (unrouted.length === 0) return out;
  const all = new Map<string, string[]>();
  for (const link of links) {
    const carried = [...(out.get(link) ?? []), ...unrouted];
    all.set(link, recipients.filter((r) => carried.includes(r)));
  }
  return all;
}
