// The edgeMap (the controller's GET /edgemap snapshot) as text (pure): each node with the devices
// placed on it, devices on no node, remote clusters, then every other link.
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

export function renderEdgeMap(snapshot: EdgeMapSnapshot): string {
  const nodes = snapshot.vertices.filter((v) => v.kind === 'edgeNode');
  const devices = snapshot.vertices.filter((v): v is DeviceVertex => v.kind === 'edgeDevice');
  const clusters = snapshot.vertices.filter((v) => v.kind === 'remoteCluster');
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
  if (clusters.length > 0) {
    lines.push('', 'remote clusters:', ...clusters.map((c) => `  ${words([c.key, c.attributes.phase ?? 'phase unknown', c.attributes.endpoint])}`));
  }
  const others = snapshot.links.filter((l) => !shown.has(linkKey(l.source, l.target)));
  if (others.length > 0) lines.push('', 'links:', ...others.map((l) => `  ${l.source} -- ${l.target}  ${linkText(l)}`));
  return lines.join('\n');
}
