// The edgeNode closest to a device by location, ranked as placement ranks (closeness.ts): distance,
// then the device's zone, then free memory, then name. The basis says what decided: 'distance' when
// the node's distance is known, 'zone' when it shares the device's zone, else 'none'.
import type { Location, NodeAttributes } from '../model.ts';
import { coordinatesOf, haversineKm, type Coordinates } from '../geo.ts';
import type { EdgeMapView } from '../view.ts';
import { requireLocation } from './location.ts';
import { compareCloseness } from '../closeness.ts';
import { parseQuantity } from '../../shared/kube/quantity.ts';
import { requireFilter, requireVertex } from './require.ts';

export type LocationBasis = 'zone' | 'distance' | 'none';

export interface NodeByLocation {
  readonly node: string;
  readonly basis: LocationBasis;
  /** Great-circle distance when both ends have coordinates. */
  readonly distanceKm?: number;
}

export interface LocationQueryOptions {
  /** Only nodes for which this returns true are candidates (e.g. Ready ones with room). */
  readonly eligible?: (node: string, attributes: NodeAttributes) => boolean;
}

interface Ranked extends NodeByLocation { readonly name: string; readonly sameZone: boolean; readonly freeMemory?: number }

function freeMemoryOf(attributes: NodeAttributes): number | undefined {
  const memory = attributes.free?.memory;
  if (memory === undefined) return undefined;
  try {
    return parseQuantity(memory);
  } catch {
    return undefined;
  }
}

function rankOf(node: string, target: Location, at: Coordinates | undefined, attributes: NodeAttributes): Ranked {
  const sameZone = target.zone !== undefined && target.zone === attributes.location?.zone;
  const there = coordinatesOf(attributes.location);
  const distanceKm = at !== undefined && there !== undefined ? haversineKm(at, there) : undefined;
  const basis: LocationBasis = distanceKm !== undefined ? 'distance' : sameZone ? 'zone' : 'none';
  const freeMemory = freeMemoryOf(attributes);
  return { node, name: node, basis, sameZone, ...(distanceKm === undefined ? {} : { distanceKm }), ...(freeMemory === undefined ? {} : { freeMemory }) };
}

const compareRanked = compareCloseness;

function candidates(map: EdgeMapView, location: unknown, options: LocationQueryOptions, query: string): Ranked[] {
  const target = requireLocation(location, query);
  const eligible = requireFilter(options.eligible, query);
  const at = coordinatesOf(target);
  const ranked: Ranked[] = [];
  for (const node of map.keysOf('edgeNode')) {
    const vertex = map.vertex(node);
    if (vertex?.kind !== 'edgeNode') continue;
    if (eligible !== undefined && !eligible(node, vertex.attributes)) continue;
    ranked.push(rankOf(node, target, at, vertex.attributes));
  }
  return ranked;
}

function strip({ node, basis, distanceKm }: Ranked): NodeByLocation {
  return distanceKm === undefined ? { node, basis } : { node, basis, distanceKm };
}

/** Every eligible edgeNode, best first for `location`. */
export function rankNodesByLocation(map: EdgeMapView, location: Location, options: LocationQueryOptions = {}): NodeByLocation[] {
  return candidates(map, location, options, 'rankNodesByLocation').sort(compareRanked).map(strip);
}

/** The best eligible edgeNode for `location`, or undefined when there is no eligible node. */
export function closestNodeToLocation(map: EdgeMapView, location: Location, options: LocationQueryOptions = {}): NodeByLocation | undefined {
  const query = 'closestNodeToLocation';
  const target = requireLocation(location, query);
  const eligible = requireFilter(options.eligible, query);
  const at = coordinatesOf(target);
  let best: Ranked | undefined;
  // One pass, one object per candidate: this runs for every device the scheduler places.
  for (const node of map.keysOf('edgeNode')) {
    const vertex = map.vertex(node);
    if (vertex?.kind !== 'edgeNode' || (eligible !== undefined && !eligible(node, vertex.attributes))) continue;
    const r = rankOf(node, target, at, vertex.attributes);
    if (best === undefined || compareRanked(r, best) < 0) best = r;
  }
  return best === undefined ? undefined : strip(best);
}

/** The best eligible edgeNode for the device `deviceKey` (namespace/name) by its location. */
export function closestNodeByLocation(map: EdgeMapView, deviceKey: string, options: LocationQueryOptions = {}): NodeByLocation | undefined {
  const device = requireVertex(map, deviceKey, 'closestNodeByLocation', 'edgeDevice');
  return closestNodeToLocation(map, device.attributes.location ?? {}, options);
}
