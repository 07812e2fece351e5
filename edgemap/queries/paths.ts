// What the path queries share: which vertices a path may cross and the eligibility filter.
// A remoteCluster is another cluster's network, never a hop on the way to a local edgeNode.
import type { NodeAttributes } from '../model.ts';
import type { EdgeMapView } from '../view.ts';

export interface PathQueryOptions {
  /** Only nodes for which this returns true are answers; paths may still cross the others. */
  readonly eligible?: (node: string, attributes: NodeAttributes) => boolean;
}

export function crossable(map: EdgeMapView, key: string): boolean {
  const kind = map.vertex(key)?.kind;
  return kind !== 'remoteCluster' && kind !== 'component';
}

export function isAnswer(map: EdgeMapView, key: string, eligible: PathQueryOptions['eligible']): boolean {
  const vertex = map.vertex(key);
  return vertex?.kind === 'edgeNode' && (eligible === undefined || eligible(key, vertex.attributes));
}
