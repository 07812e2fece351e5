// How two vertices are linked (neighborLinkType).
import type { LinkType } from '../model.ts';
import type { EdgeMapView } from '../view.ts';
import { requireVertex } from './require.ts';

/** The link type between `a` and `b`, or undefined when they are not linked. Both must exist. */
export function linkType(map: EdgeMapView, a: string, b: string): LinkType | undefined {
  requireVertex(map, a, 'linkType');
  requireVertex(map, b, 'linkType');
  return map.linkBetween(a, b)?.type;
}
