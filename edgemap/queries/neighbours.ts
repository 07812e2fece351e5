// The vertices linked to one vertex, with each link (neighborVertex, neighborLinkType).
import type { Link, VertexKind } from '../model.ts';
import type { EdgeMapView } from '../view.ts';
import { compareKeys } from './order.ts';
import { requireVertex } from './require.ts';

export interface Neighbour {
  readonly key: string;
  readonly kind: VertexKind;
  readonly link: Link;
}

/** Neighbours of `key`, sorted by key. Throws not-found for an absent vertex. */
export function neighbours(map: EdgeMapView, key: string): Neighbour[] {
  requireVertex(map, key, 'neighbours');
  const found: Neighbour[] = [];
  map.forEachNeighbour(key, (neighbour, link) => {
    const vertex = map.vertex(neighbour);
    if (vertex !== undefined) found.push({ key: neighbour, kind: vertex.kind, link });
  });
  return found.sort((a, b) => compareKeys(a.key, b.key));
}
