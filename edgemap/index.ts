// The edgeMap component: the model, its queries, snapshots and the HTTP shell.
export * from './model.ts';
export { EdgeMap, type EdgeMapOptions } from './map.ts';
export type { EdgeMapView } from './view.ts';
export { neighbours, type Neighbour } from './queries/neighbours.ts';
export { linkType } from './queries/link-type.ts';
export {
  closestNodeByLocation, closestNodeToLocation, rankNodesByLocation,
  type LocationBasis, type LocationQueryOptions, type NodeByLocation,
} from './queries/closest-by-location.ts';
export { closestNodeByHops, type NodeByHops } from './queries/closest-by-hops.ts';
export { closestNodeByLatency, type LatencyQueryOptions, type NodeByLatency } from './queries/closest-by-latency.ts';
export { nodesWithinRadius, type NodeWithin } from './queries/within-radius.ts';
export { devicesServedBy } from './queries/served-by.ts';
export { connectedComponents } from './queries/components.ts';
export { haversineKm } from './geo.ts';
export { compareCloseness, type Closeness } from './closeness.ts';
export { toSnapshot, restoreEdgeMap, SNAPSHOT_VERSION, type EdgeMapSnapshot } from './snapshot.ts';
export { toDot } from './dot.ts';
export { layoutEdgeMap, type Point } from './layout.ts';
