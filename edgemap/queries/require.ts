// Input checks every query runs first (graphology style): a clear, typed error naming the query.
import { EdgeshifuError } from '../../shared/errors.ts';
import { shown } from '../keys.ts';
import type { NodeAttributes, Vertex, VertexKind } from '../model.ts';
import type { EdgeMapView } from '../view.ts';

/** The vertex `key`, of `kind` when given; 'invalid' for a non-string, 'not-found' when absent. */
export function requireVertex(map: EdgeMapView, key: unknown, query: string, kind?: VertexKind): Vertex {
  if (typeof key !== 'string' || key === '') {
    throw new EdgeshifuError('invalid', `edgeMap ${query}: the vertex key must be a non-empty string, got ${shown(key)}`);
  }
  const vertex = map.vertex(key);
  if (vertex === undefined) throw new EdgeshifuError('not-found', `edgeMap ${query}: no vertex ${JSON.stringify(key)} in the edgeMap`);
  if (kind !== undefined && vertex.kind !== kind) {
    throw new EdgeshifuError('invalid', `edgeMap ${query}: ${JSON.stringify(key)} is an ${vertex.kind}, expected an ${kind}`);
  }
  return vertex;
}

export type NodeFilter = (node: string, attributes: NodeAttributes) => boolean;

/** An optional edgeNode filter, checked to be a function. */
export function requireFilter(filter: unknown, query: string): NodeFilter | undefined {
  if (filter === undefined || typeof filter === 'function') return filter as NodeFilter | undefined;
  throw new EdgeshifuError('invalid', `edgeMap ${query}: options.eligible must be a function (vertex) => boolean`);
}
