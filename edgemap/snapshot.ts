// The whole edgeMap as JSON (GET /edgemap, the first SSE event) and back. Vertices sorted by key
// and links by their ends, so equal maps give equal snapshots.
import { Type, type Static } from '@sinclair/typebox';
import { EdgeshifuError, errorMessage } from '../shared/errors.ts';
import { Validator } from '../shared/validation.ts';
import { EdgeMap, type EdgeMapOptions } from './map.ts';
import { LINK_TYPES, VERTEX_KINDS, type ComponentAttributes, type Link, type Vertex } from './model.ts';
import { StringEnum } from '../shared/crds/schema.ts';
import { compareKeys } from './queries/order.ts';
import type { EdgeMapView } from './view.ts';

export const SNAPSHOT_VERSION = 1;

// The envelope; each vertex's and link's attributes are checked by the map as it is rebuilt.
export const EdgeMapSnapshot = Type.Object({
  version: Type.Literal(SNAPSHOT_VERSION),
  seq: Type.Integer({ minimum: 0 }),
  vertices: Type.Array(Type.Object({ key: Type.String(), kind: StringEnum(VERTEX_KINDS), attributes: Type.Object({}) })),
  links: Type.Array(Type.Object({
    source: Type.String(), target: Type.String(), type: StringEnum(LINK_TYPES),
    latencyMs: Type.Optional(Type.Number()), bandwidthMbps: Type.Optional(Type.Number()),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

export interface EdgeMapSnapshot {
  readonly version: typeof SNAPSHOT_VERSION;
  readonly seq: number;
  readonly vertices: readonly Vertex[];
  readonly links: readonly Link[];
}

export function toSnapshot(map: EdgeMapView): EdgeMapSnapshot {
  const vertices: Vertex[] = [];
  const links: Link[] = [];
  map.forEachVertex((v) => vertices.push(v));
  map.forEachLink((l) => links.push(l));
  vertices.sort((a, b) => compareKeys(a.key, b.key));
  links.sort((a, b) => compareKeys(a.source, b.source) || compareKeys(a.target, b.target));
  return { version: SNAPSHOT_VERSION, seq: map.seq, vertices, links };
}

/** A new EdgeMap holding what `snapshot` (parsed JSON) describes; 'invalid' naming what is wrong. */
export function restoreEdgeMap(snapshot: unknown, options: EdgeMapOptions = {}): EdgeMap {
  const parsed: Static<typeof EdgeMapSnapshot> = new Validator(EdgeMapSnapshot, 'snapshot').parse(snapshot, 'edgeMap snapshot');
  return EdgeMap.assemble(parsed.seq, (map) => {
    parsed.vertices.forEach((v, i) => {
      step(`vertices[${i}]`, () => map.has(v.key) ? duplicate(v.key) : upsert(map, v.kind, v.key, v.attributes));
    });
    parsed.links.forEach(({ source, target, type, ...attributes }, i) => {
      step(`links[${i}]`, () => map.linkBetween(source, target) ? duplicate(`${source} -- ${target}`) : map.link(source, target, type, attributes));
    });
  }, options);
}

function step(what: string, run: () => unknown): void {
  try {
    run();
  } catch (err) {
    throw new EdgeshifuError('invalid', `edgeMap snapshot ${what}: ${errorMessage(err)}`, { cause: err });
  }
}

function duplicate(what: string): never {
  throw new Error(`${JSON.stringify(what)} appears twice`);
}

function upsert(map: EdgeMap, kind: Vertex['kind'], key: string, attributes: object): boolean {
  if (kind === 'edgeNode') return map.upsertNode(key, attributes);
  if (kind === 'edgeDevice') return map.upsertDevice(key, attributes);
  if (kind === 'component') return map.upsertComponent(key, attributes as ComponentAttributes);
  return map.upsertCluster(key, attributes);
}
