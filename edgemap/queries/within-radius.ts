// edgeNodes within a radius of a point or of a vertex, nearest first (ties by name). Nodes
// without coordinates are not within any radius: their distance is unknown.
import { EdgeshifuError } from '../../shared/errors.ts';
import { coordinatesOf, haversineKm } from '../geo.ts';
import type { Location } from '../model.ts';
import type { EdgeMapView } from '../view.ts';
import { requireLocation } from './location.ts';
import { compareKeys } from './order.ts';
import { requireVertex } from './require.ts';

export interface NodeWithin {
  readonly node: string;
  readonly distanceKm: number;
}

/** `from` is a vertex key or a location with latitude and longitude. */
export function nodesWithinRadius(map: EdgeMapView, from: string | Location, radiusKm: number): NodeWithin[] {
  const query = 'nodesWithinRadius';
  if (typeof radiusKm !== 'number' || !Number.isFinite(radiusKm) || radiusKm < 0) {
    throw new EdgeshifuError('invalid', `edgeMap ${query}: the radius must be a finite number of km >= 0, got ${String(radiusKm)}`);
  }
  const location = typeof from === 'string' ? requireVertex(map, from, query).attributes.location : requireLocation(from, query);
  const centre = coordinatesOf(location);
  if (centre === undefined) {
    throw new EdgeshifuError('invalid', `edgeMap ${query}: ${typeof from === 'string' ? JSON.stringify(from) : 'the location'} has no latitude/longitude to measure from`);
  }
  const found: NodeWithin[] = [];
  for (const node of map.keysOf('edgeNode')) {
    const there = coordinatesOf(map.vertex(node)?.attributes.location);
    if (there === undefined) continue;
    const distanceKm = haversineKm(centre, there);
    if (distanceKm <= radiusKm) found.push({ node, distanceKm });
  }
  return found.sort((a, b) => a.distanceKm - b.distanceKm || compareKeys(a.node, b.node));
}
