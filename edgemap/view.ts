// What queries, snapshots and the HTTP shell may read of an edgeMap: no way to mutate it.
import type { Link, Vertex, VertexKind } from './model.ts';

export interface EdgeMapView {
  /** Number of vertices. */
  readonly order: number;
  /** Number of links. */
  readonly size: number;
  /** Number of the last change emitted (0 before any). */
  readonly seq: number;
  has(key: string): boolean;
  vertex(key: string): Vertex | undefined;
  /** Keys of one kind (for edgeDevice a fresh set: devices are not indexed by kind). */
  keysOf(kind: VertexKind): ReadonlySet<string>;
  linkBetween(a: string, b: string): Link | undefined;
  forEachNeighbour(key: string, callback: (neighbour: string, link: Link) => void): void;
  forEachVertex(callback: (vertex: Vertex) => void): void;
  forEachLink(callback: (link: Link) => void): void;
}
