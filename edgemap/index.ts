// The edgeMap component: the model, its queries, snapshots and the HTTP shell.
export * from './model.ts';
export { EdgeMap, type EdgeMapOptions } from './map.ts';
export type { EdgeMapView } from './view.ts';
export {
  closestNodeByLocation, closestNodeToLocation, rankNodesByLocation,
  type LocationBasis, type LocationQueryOptions, type NodeByLocation,
} from './queries/closest-by-location.ts';
export { haversineKm } from './geo.ts';
export { compareCloseness, type Closeness } from './closeness.ts';
export { toSnapshot, restoreEdgeMap, SNAPSHOT_VERSION, type EdgeMapSnapshot } from './snapshot.ts';
export { toDot } from './dot.ts';
export { layoutEdgeMap, type Point } from './layout.ts';
