// A cheap deterministic layout for the page (readable with 1,000 devices, no force
// layout in the browser): each edgeNode sits in a grid cell with the devices it serves on a
// sunflower spiral around it; devices with no node share a last cell; remoteClusters ring the
// grid, each with the components it runs for this cluster around it. O(V + E), and the same
// topology always gives the same picture.
import type { Link, Vertex } from './model.ts';
import { compareKeys } from './queries/order.ts';

export interface Point { readonly x: number; readonly y: number }

const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));
const DEVICE_SPACING = 1;
const UNPLACED = '\u0000unplaced';

/** The node a device is drawn around: its placement, else its first linked edgeNode. */
function hostOf(device: Vertex, kinds: ReadonlyMap<string, string>, linked: ReadonlyMap<string, string[]>): string {
  const placed = device.kind === 'edgeDevice' ? device.attributes.nodeName : undefined;
  if (placed !== undefined && kinds.get(placed) === 'edgeNode') return placed;
  const first = (linked.get(device.key) ?? []).filter((k) => kinds.get(k) === 'edgeNode').sort(compareKeys)[0];
  return first ?? UNPLACED;
}

function append(lists: Map<string, string[]>, key: string, value: string): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [value]);
  else list.push(value);
}

function groupDevices(vertices: readonly Vertex[], links: readonly Link[]): Map<string, string[]> {
  const kinds = new Map(vertices.map((v) => [v.key, v.kind]));
  const linked = new Map<string, string[]>();
  for (const { source, target } of links) {
    append(linked, source, target);
    append(linked, target, source);
  }
  const groups = new Map<string, string[]>();
  for (const v of vertices) if (v.kind === 'edgeNode') groups.set(v.key, []);
  for (const v of vertices) {
    if (v.kind === 'edgeDevice') append(groups, hostOf(v, kinds, linked), v.key);
  }
  return groups;
}

function spiral(centre: Point, index: number): Point {
  const r = DEVICE_SPACING * Math.sqrt(index + 1) + DEVICE_SPACING;
  const a = index * GOLDEN_ANGLE;
  return { x: centre.x + r * Math.cos(a), y: centre.y + r * Math.sin(a) };
}

/** Positions for every vertex, in arbitrary units (sigma rescales to the viewport). */
export function layoutEdgeMap(vertices: readonly Vertex[], links: readonly Link[]): Map<string, Point> {
  const positions = new Map<string, Point>();
  const groups = groupDevices(vertices, links);
  const hosts = [...groups.keys()].sort(compareKeys);
  const largest = Math.max(1, ...[...groups.values()].map((g) => g.length));
  const cell = 2 * (DEVICE_SPACING * Math.sqrt(largest) + DEVICE_SPACING) + 3 * DEVICE_SPACING;
  // Wider than tall: screens are landscape.
  const columns = Math.max(1, Math.ceil(Math.sqrt(hosts.length * 1.5)));
  hosts.forEach((host, i) => {
    const centre = { x: (i % columns) * cell, y: Math.floor(i / columns) * cell };
    if (host !== UNPLACED) positions.set(host, centre);
    [...(groups.get(host) ?? [])].sort(compareKeys).forEach((device, j) => positions.set(device, spiral(centre, j)));
  });
  const clusters = vertices.filter((v) => v.kind === 'remoteCluster').map((v) => v.key).sort(compareKeys);
  const middle = { x: ((columns - 1) * cell) / 2, y: ((Math.ceil(hosts.length / columns) - 1) * cell) / 2 };
  // An ellipse one cell outside the grid, so the grid keeps the screen.
  clusters.forEach((key, i) => {
    const a = (2 * Math.PI * i) / clusters.length - Math.PI / 2;
    positions.set(key, { x: middle.x + (middle.x + cell) * Math.cos(a), y: middle.y + (middle.y + cell) * Math.sin(a) });
  });
  const around = new Map<string, string[]>();
  for (const v of vertices) if (v.kind === 'component') append(around, v.attributes.cluster, v.key);
  for (const [cluster, components] of around) {
    const centre = positions.get(cluster) ?? middle;
    components.sort(compareKeys).forEach((component, j) => positions.set(component, spiral(centre, j)));
  }
  return positions;
}
