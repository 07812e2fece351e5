// The edgeMap as Graphviz DOT (GET /edgemap.dot): `dot -Tsvg` draws it. Every ID and value is a
// quoted string with quotes, backslashes and line breaks escaped, so no name can break out.
import type { Link, Vertex } from './model.ts';
import { KIND_SIZE, LINK_COLOURS, vertexColour } from './style.ts';
import { toSnapshot } from './snapshot.ts';
import type { EdgeMapView } from './view.ts';

const SHAPES = { edgeNode: 'box', edgeDevice: 'ellipse', remoteCluster: 'doubleoctagon', component: 'component' } as const;

/** A DOT quoted string: `"` and `\` escaped, CR/LF as `\n`, other control characters dropped. */
export function dotString(value: string): string {
  const escaped = value
    .replaceAll('\\', '\\\\')
    .replaceAll('"', '\\"')
    .replace(/\r\n|\r|\n/g, '\\n')
    .replace(/\p{Cc}/gu, '');
  return `"${escaped}"`;
}

function attributeList(attributes: Record<string, string | number | undefined>): string {
  const parts = Object.entries(attributes)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? String(v) : dotString(v)}`);
  return `[${parts.join(', ')}]`;
}

function vertexLine(v: Vertex): string {
  const phase = v.attributes.phase;
  return `  ${dotString(v.key)} ${attributeList({
    kind: v.kind, phase, shape: SHAPES[v.kind], style: 'filled', fillcolor: vertexColour(v.kind, phase),
    width: KIND_SIZE[v.kind] / 24, zone: v.attributes.location?.zone,
  })};`;
}

function linkLine(l: Link): string {
  return `  ${dotString(l.source)} -- ${dotString(l.target)} ${attributeList({
    type: l.type, color: LINK_COLOURS[l.type], latencyMs: l.latencyMs, bandwidthMbps: l.bandwidthMbps,
  })};`;
}

export function toDot(map: EdgeMapView): string {
  const { vertices, links } = toSnapshot(map);
  return ['graph edgemap {', '  node [fontname="sans-serif"];', ...vertices.map(vertexLine), ...links.map(linkLine), '}', ''].join('\n');
}
