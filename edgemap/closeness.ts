// "Closest node": the one ranking that placement (controller/scheduling/placement.ts) and the
// edgeMap's closest-by-location query both use, so one question gets one answer. Best first:
//   1. the shorter great-circle distance; a node whose distance is unknown comes after every known one;
//   2. then the device's own zone before any other;
//   3. then more free memory;
//   4. then the smaller node name, so every replica decides alike.
export interface Closeness {
  readonly name: string;
  /** Great-circle distance when both ends have coordinates. */
  readonly distanceKm?: number;
  readonly sameZone: boolean;
  /** Bytes; unknown counts as none. */
  readonly freeMemory?: number;
}

/** Negative when a is the closer node. Example: 2 km other zone < 5 km same zone < unknown distance, same zone. */
export function compareCloseness(a: Closeness, b: Closeness): number {
  const da = a.distanceKm ?? Infinity;
  const db = b.distanceKm ?? Infinity;
  if (da !== db) return da < db ? -1 : 1;
  if (a.sameZone !== b.sameZone) return a.sameZone ? -1 : 1;
  const ma = a.freeMemory ?? 0;
  const mb = b.freeMemory ?? 0;
  if (ma !== mb) return ma > mb ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
