// The edgeNode fewest links away from a device (breadth-first search). Among nodes at the same
// distance the smallest name wins, so every replica decides alike.
import type { EdgeMapView } from '../view.ts';
import { compareKeys } from './order.ts';
import { crossable, isAnswer, type PathQueryOptions } from './paths.ts';
import { requireFilter, requireVertex } from './require.ts';

export interface NodeByHops {
  readonly node: string;
  readonly hops: number;
}

/** Undefined when no eligible edgeNode is reachable from the device. */
export function closestNodeByHops(map: EdgeMapView, deviceKey: string, options: PathQueryOptions = {}): NodeByHops | undefined {
  requireVertex(map, deviceKey, 'closestNodeByHops', 'edgeDevice');
  const eligible = requireFilter(options.eligible, 'closestNodeByHops');
  const seen = new Set<string>([deviceKey]);
  let frontier = [deviceKey];
  for (let hops = 1; frontier.length > 0; hops++) {
    const next: string[] = [];
    for (const key of frontier) {
      map.forEachNeighbour(key, (neighbour) => {
        if (seen.has(neighbour) || !crossable(map, neighbour)) return;
        seen.add(neighbour);
        next.push(neighbour);
      });
    }
    const found = next.filter((key) => isAnswer(map, key, eligible)).sort(compareKeys)[0];
    if (found !== undefined) return { node: found, hops };
    frontier = next;
  }
  return undefined;
}
