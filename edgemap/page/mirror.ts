// The page's copy of the edgeMap: a graphology graph sigma draws, fed by the SSE stream. Pure:
// apply a snapshot or a change, learn whether the stream skipped a change (then the page
// reconnects for a fresh snapshot), and lay the graph out deterministically.
import { UndirectedGraph } from 'graphology';
import type { EdgeMapChange, Link, Vertex } from '../model.ts';
import type { EdgeMapSnapshot } from '../snapshot.ts';
import { layoutEdgeMap } from '../layout.ts';
import { KIND_SIZE, LINK_COLOURS, vertexColour } from '../style.ts';

export interface DrawnVertex {
  vertex: Vertex;
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  /** Nodes and clusters are drawn above the devices around them. */
  zIndex: number;
  [key: string]: unknown;
}

export interface DrawnLink {
  link: Link;
  color: string;
  size: number;
  [key: string]: unknown;
}

export type MirrorGraph = UndirectedGraph<DrawnVertex, DrawnLink>;

export type ApplyResult = 'applied' | 'stale' | 'gap';

export class Mirror {
  readonly graph: MirrorGraph = new UndirectedGraph<DrawnVertex, DrawnLink>({ multi: false, allowSelfLoops: false });
  #seq = -1;

  get seq(): number { return this.#seq; }

  load(snapshot: EdgeMapSnapshot): void {
    this.graph.clear();
    for (const vertex of snapshot.vertices) this.#putVertex(vertex);
    for (const link of snapshot.links) this.#putLink(link);
    this.#seq = snapshot.seq;
    this.layout();
  }

  /** Applies `change` if it is the next one; 'gap' means changes were missed (resync). */
  apply(change: EdgeMapChange): ApplyResult {
    if (change.seq <= this.#seq) return 'stale';
    if (change.seq !== this.#seq + 1) return 'gap';
    this.#seq = change.seq;
    if (change.op === 'vertex-upserted') this.#putVertex(change.vertex);
    if (change.op === 'vertex-removed' && this.graph.hasNode(change.key)) this.graph.dropNode(change.key);
    if (change.op === 'link-upserted') this.#putLink(change.link);
    if (change.op === 'link-removed' && this.graph.hasEdge(change.source, change.target)) this.graph.dropEdge(change.source, change.target);
    return 'applied';
  }

  /** Recomputes every position (cheap: O(V + E)); sigma redraws on the attribute updates. */
  layout(): void {
    const vertices: Vertex[] = [];
    const links: Link[] = [];
    this.graph.forEachNode((_key, drawn) => vertices.push(drawn.vertex));
    this.graph.forEachEdge((_edge, drawn) => links.push(drawn.link));
    const positions = layoutEdgeMap(vertices, links);
    this.graph.updateEachNodeAttributes((key, drawn) => {
      const at = positions.get(key);
      return at === undefined ? drawn : { ...drawn, x: at.x, y: at.y };
    });
  }

  #putVertex(vertex: Vertex): void {
    const before = this.graph.hasNode(vertex.key) ? this.graph.getNodeAttributes(vertex.key) : undefined;
    const drawn: DrawnVertex = {
      vertex, x: before?.x ?? 0, y: before?.y ?? 0, size: KIND_SIZE[vertex.kind],
      color: vertexColour(vertex.kind, vertex.attributes.phase), label: `${vertex.key} · ${vertex.attributes.phase ?? 'Unknown'}`,
      zIndex: vertex.kind === 'edgeDevice' ? 0 : 1,
    };
    if (before === undefined) this.graph.addNode(vertex.key, drawn);
    else this.graph.replaceNodeAttributes(vertex.key, drawn);
  }

  #putLink(link: Link): void {
    const drawn: DrawnLink = { link, color: LINK_COLOURS[link.type], size: link.type === 'Federation' ? 3 : 2 };
    if (this.graph.hasEdge(link.source, link.target)) this.graph.replaceEdgeAttributes(link.source, link.target, drawn);
    else if (this.graph.hasNode(link.source) && this.graph.hasNode(link.target)) this.graph.addEdge(link.source, link.target, drawn);
  }
}
