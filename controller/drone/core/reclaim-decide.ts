// The reclaim decision (pure): where an arriving job's components go, and which placed component,
// at most `limit` of them (0 or 1), moves where to make room. A function of the job and the set of
// offers alone: offers and what they hold are sorted first, so every cluster that holds the same
// offers, in whatever order they came, computes the same decision. A component the offers do not
// list as movable (launched, or sold capacity) is never moved.
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
  readonly move?: Move;
}

interface Room { room: Resources; free: Resources }
interface Item { readonly origin: string; readonly need: Resources; readonly allowed: (cluster: string) => boolean }

const weight = (r: Resources): number => r.cpu + r.memory + 100 * (r.pods ?? 0);
const movableKey = (m: Movable): string => `${m.origin}/${m.app}/${m.component}`;

/** Where each item goes (in its order) within the rooms, or undefined; largest first, clusters by id. */
function placeItems(rooms: ReadonlyMap<string, Room>, items: readonly Item[]): string[] | undefined {
  const order = items.map((_, i) => i).sort((x, y) => weight((items[y] as Item).need) - weight((items[x] as Item).need) || x - y);
  const clusters = [...rooms.keys()].sort();
  const at: string[] = [];
  const visit = (k: number): boolean => {
    const index = order[k];
    if (index === undefined) return true;
    const item = items[index] as Item;
    for (const cluster of clusters) {
      const r = rooms.get(cluster) as Room;
      if (!item.allowed(cluster) || !fits(item.need, r.free) || (item.origin !== cluster && !fits(item.need, r.room))) continue;
      const before = { ...r };
      r.free = subtract(r.free, item.need);
      if (item.origin !== cluster) r.room = subtract(r.room, item.need);
      at[index] = cluster;
      if (visit(k + 1)) return true;
      r.free = before.free;
      r.room = before.room;
    }
    return false;
  };
  return visit(0) ? at : undefined;
}

function roomsOf(offers: readonly ReclaimOffer[]): Map<string, Room> {
  return new Map(offers.map((o) => [o.cluster, { room: o.room, free: o.free }]));
}

/**
 * The job placed as is if it can be; else with one placed component moved (the lightest first,
 * then by origin, app and component), never back to where it is. Undefined: no move helps.
 */
export function decideReclaim(job: { readonly origin: string; readonly components: readonly Component[] }, unsorted: readonly ReclaimOffer[], limit: number): ReclaimDecision | undefined {
  const offers = [...unsorted].sort((a, b) => a.cluster.localeCompare(b.cluster));
  const mine: Item[] = job.components.map((c) => ({ origin: job.origin, need: c.resources, allowed: (cluster) => allows(c, cluster) }));
  const direct = placeItems(roomsOf(offers), mine);
  if (direct !== undefined) return { placement: Object.fromEntries(job.components.map((c, i) => [c.name, direct[i] ?? ''])) };
  if (limit < 1) return undefined;
  const candidates = offers.flatMap((o) => o.movable.map((m) => ({ ...m, from: o.cluster })));
  candidates.sort((a, b) => weight(a.resources) - weight(b.resources) || movableKey(a).localeCompare(movableKey(b)) || a.from.localeCompare(b.from));
  for (const m of candidates) {
    const rooms = roomsOf(offers);
    const host = rooms.get(m.from) as Room;
    host.free = add(host.free, m.resources);
    if (m.origin !== m.from) host.room = add(host.room, m.resources);
    const moved: Item = { origin: m.origin, need: m.resources, allowed: (cluster) => cluster !== m.from };
    const at = placeItems(rooms, [moved, ...mine]);
    if (at === undefined) continue;
    return {
      placement: Object.fromEntries(job.components.map((c, i) => [c.name, at[i + 1] ?? ''])),
      move: { origin: m.origin, app: m.app, component: m.component, resources: m.resources, from: m.from, to: at[0] ?? '' },
    };
  }
  return undefined;
}
