// The edgeMap's links, by vertex: each vertex's neighbours with the one link to each. Pure.
//
// Most vertices are devices with a single link, to their node, and the controller holds one per
// EdgeDevice (10,000 devices under 100 MB). A vertex with one neighbour therefore holds
// that link itself, a few neighbours make a short list, and only a vertex with many, as a node
// serving hundreds of devices, gets a Map: a Map per device costs ~180 bytes of heap, a one-entry
// list ~60, the link alone nothing more. graphology, which
// the map used before, kept a data object, a generated key and an adjacency entry on both ends per
// link (~0.8 KB per device with the vertex); the page still draws with graphology.
import type { Link } from './model.ts';

/** Above this many neighbours a vertex's list becomes a Map (a scan of 16 is cheaper than a hash). */
const LIST_LIMIT = 16;

type Neighbours = Link | Link[] | Map<string, Link>;

/** The end of `link` that is not `key`. */
export function otherEnd(link: Link, key: string): string {
  return link.source === key ? link.target : link.source;
}

export class Adjacency {
  readonly #byVertex = new Map<string, Neighbours>();
  #size = 0;

  /** Number of links. */
  get size(): number { return this.#size; }

  get(a: string, b: string): Link | undefined {
    const neighbours = this.#byVertex.get(a);
    if (neighbours === undefined) return undefined;
    if (neighbours instanceof Map) return neighbours.get(b);
    return listOf(neighbours).find((link) => otherEnd(link, a) === b);
  }

  /** Stores `link` between its ends, replacing the one there was. */
  set(link: Link): void {
    const added = this.#put(link.source, link.target, link);
    this.#put(link.target, link.source, link);
    if (added) this.#size++;
  }

  /** Removes the link between `a` and `b`; the link removed, if there was one. */
  delete(a: string, b: string): Link | undefined {
    const link = this.#take(a, b);
    if (link === undefined) return undefined;
    this.#take(b, a);
    this.#size--;
    return link;
  }

  forEach(key: string, callback: (neighbour: string, link: Link) => void): void {
    const neighbours = this.#byVertex.get(key);
    if (neighbours === undefined) return;
    // a copy: the callback may change the map (remove a vertex's links one by one)
    for (const link of [...valuesOf(neighbours)]) callback(otherEnd(link, key), link);
  }

  /** Every link once, by the vertex it was first stored under. */
  forEachLink(callback: (link: Link) => void): void {
    for (const [key, neighbours] of this.#byVertex) {
      for (const link of valuesOf(neighbours)) {
        if (link.source === key) callback(link);
      }
    }
  }

  /** True when `key` has no link left (then it holds no memory here). */
  isolated(key: string): boolean {
    return !this.#byVertex.has(key);
  }

  // true when the link is new between these ends
  #put(key: string, other: string, link: Link): boolean {
    const neighbours = this.#byVertex.get(key);
    if (neighbours === undefined || (!Array.isArray(neighbours) && !(neighbours instanceof Map) && otherEnd(neighbours, key) === other)) {
      this.#byVertex.set(key, link);
      return neighbours === undefined;
    }
    if (neighbours instanceof Map) {
      const added = !neighbours.has(other);
      neighbours.set(other, link);
      return added;
    }
    const list = listOf(neighbours);
    const at = list.findIndex((l) => otherEnd(l, key) === other);
    if (at >= 0) {
      list[at] = link;
      return false;
    }
    list.push(link);
    if (list.length > LIST_LIMIT) this.#byVertex.set(key, new Map(list.map((l) => [otherEnd(l, key), l])));
    else if (list !== neighbours) this.#byVertex.set(key, list);
    return true;
  }

  #take(key: string, other: string): Link | undefined {
    const neighbours = this.#byVertex.get(key);
    if (neighbours === undefined) return undefined;
    let link: Link | undefined;
    if (neighbours instanceof Map) {
      link = neighbours.get(other);
      neighbours.delete(other);
    } else if (Array.isArray(neighbours)) {
      const at = neighbours.findIndex((l) => otherEnd(l, key) === other);
      if (at >= 0) link = neighbours.splice(at, 1)[0];
    } else if (otherEnd(neighbours, key) === other) {
      link = neighbours;
    }
    // an emptied vertex gives its entry back; a Map or list shrunk small stays as it is (no flapping)
    if (link === neighbours || sizeOf(neighbours) === 0) this.#byVertex.delete(key);
    return link;
  }
}

function listOf(neighbours: Link | Link[]): Link[] {
  return Array.isArray(neighbours) ? neighbours : [neighbours];
}

function valuesOf(neighbours: Neighbours): Iterable<Link> {
  return neighbours instanceof Map ? neighbours.values() : listOf(neighbours);
}

function sizeOf(neighbours: Neighbours): number {
  if (neighbours instanceof Map) return neighbours.size;
  return Array.isArray(neighbours) ? neighbours.length : 1;
}
