// The edgeMap: the topology of edgeNodes, edgeDevices and remoteClusters with typed
// links, held in its own vertex table and adjacency (adjacency.ts). Pure and synchronous: the controller applies informer
// events to it and subscribers (the SSE stream) hear each change.
//
// Contract:
// - upsert* replaces a vertex's attributes whole (level-based, as informers deliver objects) and
//   emits only when something changed; a key names one vertex whatever its kind.
// - remove* is idempotent: removing an absent vertex returns false, emits nothing, never throws.
//   Removing a vertex removes its links (one link-removed each, then vertex-removed).
// - link(a, b) upserts the one undirected link between two existing vertices; unlink is idempotent.
// - Listeners run synchronously in subscription order; one that throws does not stop the others
//   nor the mutation: its error goes to `onListenerError`.
import { EdgeshifuError } from '../shared/errors.ts';
import { Adjacency } from './adjacency.ts';
import { attributeCheckers, type AttributeCheckers } from './attributes.ts';
import { checkKey, ordered } from './keys.ts';
import { checkLinkEnds } from './link-rules.ts';
import { frozenCopy, samePlain } from './plain.ts';
import type {
  ClusterAttributes, ComponentAttributes, DeviceAttributes, EdgeMapChange, EdgeMapListener, Link, LinkAttributes, LinkType,
  NodeAttributes, Vertex, VertexKind,
} from './model.ts';
import { VERTEX_KINDS } from './model.ts';
import type { EdgeMapView } from './view.ts';

export interface EdgeMapOptions {
  /** Where a throwing listener's error goes (the controller logs it). */
  readonly onListenerError?: (err: unknown, change: EdgeMapChange) => void;
}

const INDEXED_KINDS = VERTEX_KINDS.filter((k): k is IndexedKind => k !== 'edgeDevice');
type IndexedKind = Exclude<VertexKind, 'edgeDevice'>;

type ChangeBody = EdgeMapChange extends infer C ? (C extends EdgeMapChange ? Omit<C, 'seq'> : never) : never;

export class EdgeMap implements EdgeMapView {
  readonly #vertices = new Map<string, Vertex>();
  readonly #links = new Adjacency();
  /**
   * Nodes' and clusters' keys, which queries go through by kind; devices are not indexed: one Set
   * entry each cost ~40 bytes at 10,000 devices, and nothing hot lists them by kind.
   */
  readonly #byKind = new Map<IndexedKind, Set<string>>(INDEXED_KINDS.map((k) => [k, new Set<string>()]));
  readonly #listeners = new Set<EdgeMapListener>();
  readonly #check: AttributeCheckers = attributeCheckers();
  readonly #onListenerError: (err: unknown, change: EdgeMapChange) => void;
  #seq = 0;

  constructor(options: EdgeMapOptions = {}) {
    this.#onListenerError = options.onListenerError ?? ((): void => undefined);
  }

  /**
   * A map filled by `fill` before anyone can subscribe, numbered from `seq` afterwards (a restored
   * snapshot continues its numbering, so clients holding that snapshot stay in step).
   */
  static assemble(seq: number, fill: (map: EdgeMap) => void, options: EdgeMapOptions = {}): EdgeMap {
    const map = new EdgeMap(options);
    fill(map);
    map.#seq = seq;
    return map;
  }

  get order(): number { return this.#vertices.size; }
  get size(): number { return this.#links.size; }
  get seq(): number { return this.#seq; }
  get listenerCount(): number { return this.#listeners.size; }

  upsertNode(name: string, attributes: NodeAttributes = {}): boolean {
    return this.#upsert('edgeNode', name, attributes);
  }

  upsertDevice(key: string, attributes: DeviceAttributes = {}): boolean {
    return this.#upsert('edgeDevice', key, attributes);
  }

  upsertCluster(name: string, attributes: ClusterAttributes = {}): boolean {
    return this.#upsert('remoteCluster', name, attributes);
  }

  removeNode(name: string): boolean { return this.#remove('edgeNode', name); }
  removeDevice(key: string): boolean { return this.#remove('edgeDevice', key); }
  removeCluster(name: string): boolean { return this.#remove('remoteCluster', name); }

  /** An offloaded component, key namespace/deployment/component. */
  upsertComponent(key: string, attributes: ComponentAttributes): boolean {
    return this.#upsert('component', key, attributes);
  }

  removeComponent(key: string): boolean { return this.#remove('component', key); }

  /** Creates or updates the link between `a` and `b`; true when something changed. */
  link(a: string, b: string, type: LinkType, attributes: LinkAttributes = {}): boolean {
    const what = `edgeMap link ${JSON.stringify(a)} -- ${JSON.stringify(b)}`;
    this.#check.link(type, attributes, what);
    if (a === b) throw new EdgeshifuError('invalid', `${what}: a vertex cannot be linked to itself`);
    const ends = [this.#existing(a, what), this.#existing(b, what)] as const;
    checkLinkEnds(type, ends[0].kind, ends[1].kind, what);
    const [source, target] = ordered(a, b);
    const link: Link = frozenCopy({ ...attributes, source, target, type });
    const before = this.#links.get(source, target);
    if (before !== undefined && samePlain(before, link)) return false;
    this.#links.set(link);
    this.#emit({ op: 'link-upserted', link });
    return true;
  }

  /** Removes the link between `a` and `b` if there is one (idempotent). */
  unlink(a: string, b: string): boolean {
    if (this.#links.delete(a, b) === undefined) return false;
    const [source, target] = ordered(a, b);
    this.#emit({ op: 'link-removed', source, target });
    return true;
  }

  /** Hears every later change; returns the unsubscribe function (calling it twice is harmless). */
  subscribe(listener: EdgeMapListener): () => void {
    const own = (change: EdgeMapChange): void => { listener(change); };
    this.#listeners.add(own);
    return () => { this.#listeners.delete(own); };
  }

  has(key: string): boolean { return this.#vertices.has(key); }

  vertex(key: string): Vertex | undefined {
    return this.#vertices.get(key);
  }

  /** Keys of one kind: a live set for nodes and clusters, a new one (a pass over the map) for devices. */
  keysOf(kind: VertexKind): ReadonlySet<string> {
    if (kind !== 'edgeDevice') return this.#byKind.get(kind) ?? new Set();
    const devices = new Set<string>();
    for (const vertex of this.#vertices.values()) if (vertex.kind === kind) devices.add(vertex.key);
    return devices;
  }

  linkBetween(a: string, b: string): Link | undefined {
    return this.#links.get(a, b);
  }

  forEachNeighbour(key: string, callback: (neighbour: string, link: Link) => void): void {
    this.#links.forEach(key, callback);
  }

  forEachVertex(callback: (vertex: Vertex) => void): void {
    for (const vertex of this.#vertices.values()) callback(vertex);
  }

  forEachLink(callback: (link: Link) => void): void {
    this.#links.forEachLink(callback);
  }

  #upsert(kind: VertexKind, key: string, attributes: object): boolean {
    const what = `edgeMap ${kind} ${JSON.stringify(key)}`;
    checkKey(kind, key, what);
    this.#check.vertex(kind, attributes, what);
    const before = this.vertex(key);
    if (before !== undefined && before.kind !== kind) {
      throw new EdgeshifuError('conflict', `${what}: the key already names an ${before.kind}; remove it first or pick another name`);
    }
    const vertex = frozenCopy({ key, kind, attributes }) as Vertex;
    if (before !== undefined && samePlain(before.attributes, vertex.attributes)) return false;
    this.#vertices.set(key, vertex);
    if (kind !== 'edgeDevice') this.#keys(kind).add(key);
    this.#emit({ op: 'vertex-upserted', vertex });
    return true;
  }

  #remove(kind: VertexKind, key: string): boolean {
    const vertex = this.vertex(key);
    if (vertex === undefined) return false;
    if (vertex.kind !== kind) {
      throw new EdgeshifuError('invalid', `edgeMap remove ${kind} ${JSON.stringify(key)}: the key names an ${vertex.kind}; remove it as one`);
    }
    this.#links.forEach(key, (neighbour, link) => {
      this.#links.delete(key, neighbour);
      this.#emit({ op: 'link-removed', source: link.source, target: link.target });
    });
    this.#vertices.delete(key);
    if (kind !== 'edgeDevice') this.#keys(kind).delete(key);
    this.#emit({ op: 'vertex-removed', key, kind });
    return true;
  }

  #existing(key: string, what: string): Vertex {
    const vertex = this.vertex(key);
    if (vertex === undefined) throw new EdgeshifuError('not-found', `${what}: no vertex ${JSON.stringify(key)} in the edgeMap`);
    return vertex;
  }

  #keys(kind: IndexedKind): Set<string> {
    let keys = this.#byKind.get(kind);
    if (keys === undefined) this.#byKind.set(kind, keys = new Set());
    return keys;
  }

  #emit(body: ChangeBody): void {
    const change = Object.freeze({ ...body, seq: ++this.#seq }) as EdgeMapChange;
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (err) {
        this.#onListenerError(err, change);
      }
    }
  }
}
