// The edgeMap (the controller's GET /edgemap snapshot) as text (pure): each node with the devices
// placed on it, devices on no node, remote clusters with the components offloaded to each, then
// every other link.
import type { EdgeMapSnapshot } from '../../edgemap/snapshot.ts';
import type { Link, Resources, Vertex } from '../../edgemap/model.ts';
import { byteQuantity } from './table.ts';

type DeviceVertex = Extract<Vertex, { kind: 'edgeDevice' }>;

function resources(free: Resources | undefined): string | undefined {
  if (free === undefined) return undefined;
  const parts = [free.cpu === undefined ? '' : `cpu ${free.cpu}`, free.memory === undefined ? '' : `memory ${byteQuantity(free.memory) ?? ''}`].filter((p) => p !== '');
  return parts.length === 0 ? undefined : `free ${parts.join(', ')}`;
}

function words(parts: readonly (string | undefined)[]): string {
  return parts.filter((p): p is string => p !== undefined && p !== '').join('  ');
}

function linkText(link: Link): string {
  return words([link.type, link.latencyMs === undefined ? undefined : `${String(link.latencyMs)} ms`, link.bandwidthMbps === undefined ? undefined : `${String(link.bandwidthMbps)} Mbps`]);
}

function plural(count: number, one: string): string {
  return `${String(count)} ${one}${count === 1 ? '' : 's'}`;
}

function deviceLine(device: DeviceVertex, link: Link | undefined): string {
  const a = device.attributes;
  return `  ${words([device.key, a.phase ?? 'phase unknown', a.protocol, a.deviceShifuUrl, link === undefined ? undefined : `(${linkText(link)})`])}`;
}

function linkKey(a: string, b: string): string {
  return a < b ? `${a}\n${b}` : `${b}\n${a}`;
}

type ClusterVertex = Extract<Vertex, { kind: 'remoteCluster' }>;
type ComponentVertex = Extract<Vertex, { kind: 'component' }>;

/** Each remote cluster with the components it runs for this cluster, then those whose cluster is not on the map. */
function clusterLines(clusters: readonly ClusterVertex[], components: readonly ComponentVertex[], shown: Set<string>): string[] {
  const lines: string[] = clusters.length > 0 ? ['', 'remote clusters:'] : [];
  for (const c of clusters) {
    lines.push(`  ${words([c.key, c.attributes.phase ?? 'phase unknown', c.attributes.endpoint ?? c.attributes.broker])}`);
    for (const component of components.filter((o) => o.attributes.cluster === c.key)) {
      shown.add(linkKey(component.key, c.key));
      lines.push(`    runs ${words([component.key, component.attributes.phase ?? 'phase unknown', component.attributes.endpoint])}`);
    }
  }
  const waiting = components.filter((o) => !clusters.some((c) => c.key === o.attributes.cluster));
  if (waiting.length > 0) lines.push('', 'offloaded to a cluster not on the map:', ...waiting.map((o) => `  ${words([o.key, o.attributes.phase ?? 'phase unknown', `on ${o.attributes.cluster}`])}`));
  return lines;
}

export function renderEdgeMap(snapshot: EdgeMapSnapshot): string {
  const nodes = snapshot.vertices.filter((v) => v.kind === 'edgeNode');
  const devices = snapshot.vertices.filter((v): v is DeviceVertex => v.kind === 'edgeDevice');
  const clusters = snapshot.vertices.filter((v): v is ClusterVertex => v.kind === 'remoteCluster');
  const components = snapshot.vertices.filter((v): v is ComponentVertex => v.kind === 'component');
  const links = new Map(snapshot.links.map((l) => [linkKey(l.source, l.target), l]));
  const shown = new Set<string>();
  const lines = [`edgeMap (seq ${String(snapshot.seq)}): ${plural(nodes.length, 'node')}, ${plural(devices.length, 'device')}, ${plural(clusters.length, 'remote cluster')}, ${plural(snapshot.links.length, 'link')}`];
  for (const node of nodes) {
    const a = node.attributes;
    lines.push('', words([node.key, a.phase ?? 'phase unknown', a.location?.zone === undefined ? undefined : `zone ${a.location.zone}`, resources(a.free)]));
    const placed = devices.filter((d) => d.attributes.nodeName === node.key);
    for (const device of placed) {
      const key = linkKey(device.key, node.key);
      shown.add(key);
      lines.push(deviceLine(device, links.get(key)));
    }
    if (placed.length === 0) lines.push('  (no devices placed here)');
  }
  const unplaced = devices.filter((d) => d.attributes.nodeName === undefined || !nodes.some((n) => n.key === d.attributes.nodeName));
  if (unplaced.length > 0) lines.push('', 'devices on no node:', ...unplaced.map((d) => deviceLine(d, undefined)));
  lines.push(...clusterLines(clusters, components, shown));
  const others = snapshot.links.filter((l) => !shown.has(linkKey(l.source, l.target)));
  if (others.length > 0) lines.push('', 'links:', ...others.map((l) => `  ${l.source} -- ${l.target}  ${linkText(l)}`));
  return lines.join('\n');
}
