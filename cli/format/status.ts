// `edgeshifu status` as data and as text (pure): the controller (from /readyz, /metrics and its
// Lease), the nodes (Node joined with its EdgeNode), the devices with their phases, the
// federation peers. Whatever could not be read is named in `problems`.
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import type { CustomObject } from '../../shared/crds/resources.ts';
import type { EdgeNodeSpec, EdgeNodeStatus } from '../../shared/crds/edgenode.ts';
import type { FederationSpec, FederationStatus } from '../../shared/crds/federation.ts';
import { deviceProblems, renderDevices, sortRows, type DeviceRow } from './devices.ts';
import { age, byteQuantity, renderTable } from './table.ts';

export type EdgeNode = CustomObject<EdgeNodeSpec, EdgeNodeStatus>;
export type Federation = CustomObject<FederationSpec, FederationStatus>;

export interface ControllerReport {
  readonly where: string;
  readonly reachable: boolean;
  readonly ready?: boolean;
  /** /readyz's text: `leading`, `caches synced; standing by for the lease`, `filling caches`. */
  readonly detail?: string;
  readonly leading?: boolean;
  readonly edgeDevices?: number;
  readonly workqueueDepth?: number;
  /** The Lease of leader election, when it exists (absent with --no-leader-election). */
  readonly lease?: { readonly holder?: string; readonly renewedAgo?: string; readonly expired: boolean };
  readonly error?: string;
}

export interface NodeRow {
  readonly name: string;
  readonly ready: string;
  readonly schedulable: boolean;
  /** shifud reports for this node (an EdgeNode of the same name exists). */
  readonly edgeNode: boolean;
  readonly zone?: string;
  readonly freeCpu?: string;
  readonly freeMemory?: string;
  readonly heartbeat?: string;
}

export interface PeerRow {
  readonly name: string;
  readonly clusterId: string;
  readonly brokerUrl: string;
  readonly weight: number;
  readonly connected: string;
}

export interface StatusReport {
  readonly kubernetes: { readonly server: string; readonly kubeconfig: string; readonly context: string; readonly reachable: boolean };
  readonly controller: ControllerReport;
  readonly nodes: readonly NodeRow[];
  readonly devices: readonly DeviceRow[];
  readonly federation: readonly PeerRow[];
  readonly problems: readonly string[];
}

/** Sums of each metric over its labels, from Prometheus' text format. */
export function parseMetrics(text: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const value = Number(match[3]);
    if (!Number.isNaN(value)) sums.set(match[1] ?? '', (sums.get(match[1] ?? '') ?? 0) + value);
  }
  return sums;
}

export interface ControllerFacts {
  readonly where: string;
  readonly readyz?: { readonly status: number; readonly body: string };
  readonly metrics?: string;
  readonly lease?: V1Lease;
  readonly error?: string;
}

function leaseReport(lease: V1Lease | undefined, now: Date): ControllerReport['lease'] {
  if (lease?.spec === undefined) return undefined;
  const renewed = lease.spec.renewTime as unknown as string | undefined;
  const renewedAt = renewed === undefined ? Number.NaN : Date.parse(renewed);
  const expired = Number.isNaN(renewedAt) || now.getTime() > renewedAt + (lease.spec.leaseDurationSeconds ?? 0) * 1000;
  return { holder: lease.spec.holderIdentity, renewedAgo: age(renewed, now), expired };
}

export function controllerReport(facts: ControllerFacts, now: Date): ControllerReport {
  const lease = leaseReport(facts.lease, now);
  if (facts.readyz === undefined) return { where: facts.where, reachable: false, lease, error: facts.error };
  const metrics = parseMetrics(facts.metrics ?? '');
  const detail = facts.readyz.body.trim();
  return {
    where: facts.where, reachable: true, ready: facts.readyz.status === 200, detail,
    // /readyz says `leading` on the replica that reconciles; edgeshifu_leader only moves with leader election on
    leading: detail === 'leading' || metrics.get('edgeshifu_leader') === 1,
    edgeDevices: metrics.get('edgeshifu_edgedevices'), workqueueDepth: metrics.get('edgeshifu_workqueue_depth'), lease,
  };
}

function quantity(value: string | number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** What shifud reported for a node, from its EdgeNode. */
function edgeNodeFacts(edgeNode: EdgeNode | undefined, now: Date): Pick<NodeRow, 'edgeNode' | 'zone' | 'freeCpu' | 'freeMemory' | 'heartbeat'> {
  if (edgeNode === undefined) return { edgeNode: false };
  const free = edgeNode.status?.free;
  return {
    edgeNode: true, zone: edgeNode.spec.location?.zone, freeCpu: quantity(free?.cpu), freeMemory: byteQuantity(free?.memory),
    heartbeat: age(edgeNode.status?.lastHeartbeatTime, now),
  };
}

function nodeRow(node: V1Node, edgeNode: EdgeNode | undefined, now: Date): NodeRow {
  return {
    name: node.metadata?.name ?? '',
    ready: node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown',
    schedulable: node.spec?.unschedulable !== true,
    ...edgeNodeFacts(edgeNode, now),
  };
}

export function nodeRows(nodes: readonly V1Node[], edgeNodes: readonly EdgeNode[], now: Date): NodeRow[] {
  const byName = new Map(edgeNodes.map((e) => [e.metadata.name ?? '', e]));
  const rows = nodes.map((node) => nodeRow(node, byName.get(node.metadata?.name ?? ''), now));
  // an EdgeNode whose Node is gone still shows, as the controller would see it: not ready
  const orphans = edgeNodes.filter((e) => !nodes.some((n) => n.metadata?.name === e.metadata.name)).map((e): NodeRow => ({
    name: e.metadata.name ?? '', ready: 'NoNode', schedulable: false, edgeNode: true, zone: e.spec.location?.zone, heartbeat: age(e.status?.lastHeartbeatTime, now),
  }));
  return sortRows([...rows, ...orphans]);
}

export function peerRow(federation: Federation): PeerRow {
  return {
    name: federation.metadata.name ?? '', clusterId: federation.spec.clusterId, brokerUrl: federation.spec.brokerUrl, weight: federation.spec.weight ?? 1,
    connected: federation.status?.conditions?.find((c) => c.type === 'Connected')?.status ?? 'Unknown',
  };
}

function controllerLine(c: ControllerReport): string {
  if (!c.reachable) return `controller  ${c.where}  UNREACHABLE${c.error === undefined ? '' : `: ${c.error}`}`;
  const parts = [c.ready === true ? 'ready' : 'NOT READY', c.detail ?? ''];
  if (c.edgeDevices !== undefined) parts.push(`${String(c.edgeDevices)} EdgeDevices cached`);
  if (c.workqueueDepth !== undefined) parts.push(`work queue ${String(c.workqueueDepth)}`);
  const lease = c.lease === undefined ? 'no leader election Lease' : `Lease held by ${c.lease.holder ?? 'nobody'}${c.lease.expired ? ' (EXPIRED)' : ''}, renewed ${c.lease.renewedAgo ?? '?'} ago`;
  return `controller  ${c.where}  ${parts.filter((p) => p !== '').join(', ')}; ${lease}`;
}

export function renderStatus(report: StatusReport, now: Date): string {
  const { kubernetes, controller } = report;
  const nodes = report.nodes.length === 0 ? 'no nodes' : renderTable(['name', 'ready', 'schedulable', 'edgenode', 'zone', 'free cpu', 'free memory', 'heartbeat'],
    report.nodes.map((n) => [n.name, n.ready, n.schedulable ? 'yes' : 'no', n.edgeNode ? 'yes' : 'no', n.zone, n.freeCpu, n.freeMemory, n.heartbeat === undefined ? undefined : `${n.heartbeat} ago`]));
  const peers = report.federation.length === 0 ? 'no federation peers' : renderTable(['name', 'cluster', 'broker', 'weight', 'connected'],
    report.federation.map((p) => [p.name, p.clusterId, p.brokerUrl, p.weight, p.connected]));
  const problems = [...report.problems, ...deviceProblems(report.devices)];
  return [
    `kubernetes  ${kubernetes.server}  ${kubernetes.reachable ? 'reachable' : 'UNREACHABLE'} (kubeconfig ${kubernetes.kubeconfig}, context ${kubernetes.context})`,
    controllerLine(controller),
    '', 'NODES', nodes,
    '', 'DEVICES', renderDevices(report.devices, now),
    '', 'FEDERATION PEERS', peers,
    ...(problems.length === 0 ? [] : ['', 'PROBLEMS', ...problems.map((p) => `- ${p}`)]),
  ].join('\n');
}
