// The EdgeNode shifud registers and the status it applies (server-side apply on /status, field
// manager "shifud": only the fields listed here are shifud's; others' fields are left alone).
import { API_VERSION, EDGE_NODE, type CustomObject } from '../shared/crds/resources.ts';
import type { EdgeNodeSpec, EdgeNodeStatus } from '../shared/crds/edgenode.ts';
import type { Lwm2mEndpointSeen } from '../shared/crds/lwm2m-status.ts';
import type { Condition } from '../shared/crds/schema.ts';
import { nextCondition } from './conditions.ts';
import { capacityOf, freeOf, type NodeSample } from './sample.ts';
import { isoTime } from '../shared/time.ts';

export type EdgeNode = CustomObject<EdgeNodeSpec, EdgeNodeStatus>;
export type SeenDevice = NonNullable<EdgeNodeStatus['devices']>[number];
export type OpcuaServerSeen = NonNullable<EdgeNodeStatus['opcuaServers']>[number];

/** Changes when the OPC UA servers seen change (a reason to write). */
export function opcuaKey(servers: readonly OpcuaServerSeen[]): string {
  return JSON.stringify(servers);
}
/** What is applied to /status: no spec, so shifud owns no spec field. */
export type EdgeNodeStatusApply = Omit<EdgeNode, 'spec'>;

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'shifud' };
/** status.devices holds at most this many entries (the CRD's maxItems). */
export const MAX_SEEN_DEVICES = 4096;

export function edgeNodeFor(nodeName: string): EdgeNode {
  return { apiVersion: API_VERSION, kind: EDGE_NODE.kind, metadata: { name: nodeName, labels: { ...MANAGED_BY } }, spec: {} };
}

/** Code-point order: deterministic, which is all this sort needs; localeCompare loads ICU's collation data (~2.3 MB RSS). */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Devices sorted by namespace/name, so the same set always gives the same list and key. */
export function sortedDevices(devices: readonly SeenDevice[]): SeenDevice[] {
  return [...devices].sort((a, b) => byCodePoint(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`)).slice(0, MAX_SEEN_DEVICES);
}

export function devicesKey(devices: readonly SeenDevice[]): string {
  return sortedDevices(devices).map((d) => `${d.namespace}/${d.name}:${d.linkType}`).join(',');
}

export interface NodeStatusInput {
  readonly nodeName: string;
  readonly sample: NodeSample;
  readonly ready: { readonly status: boolean; readonly reason: string; readonly message: string };
  readonly devices: readonly SeenDevice[];
  /** OPC UA discovery's servers, when it is on. */
  readonly opcuaServers?: readonly OpcuaServerSeen[];
  /** LwM2M clients registered with this node's deviceShifus. */
  readonly lwm2mEndpoints?: readonly Lwm2mEndpointSeen[];
  /** The EdgeNode as last read: its generation and existing Ready condition. */
  readonly current?: EdgeNode;
  readonly now: Date;
}

/** The apply body for the EdgeNode's status subresource. */
export function nodeStatusApply(input: NodeStatusInput): EdgeNodeStatusApply {
  const generation = input.current?.metadata.generation;
  const ready: Condition = nextCondition(input.current?.status?.conditions, {
    type: 'Ready',
    status: input.ready.status ? 'True' : 'False',
    reason: input.ready.reason,
    message: input.ready.message,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  }, input.now);
  return {
    apiVersion: API_VERSION,
    kind: EDGE_NODE.kind,
    metadata: { name: input.nodeName },
    status: {
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      capacity: capacityOf(input.sample),
      free: freeOf(input.sample),
      lastHeartbeatTime: isoTime(input.now.getTime()),
      conditions: [ready],
      devices: sortedDevices(input.devices),
      ...(input.opcuaServers === undefined ? {} : { opcuaServers: input.opcuaServers.slice(0, 256) }),
      // left out when empty: server-side apply then removes the field shifud wrote before
      ...(input.lwm2mEndpoints === undefined || input.lwm2mEndpoints.length === 0 ? {} : { lwm2mEndpoints: [...input.lwm2mEndpoints] }),
    },
  };
}
