// What the scheduler knows of a node, built from the Kubernetes Node, its EdgeNode (shifud) and the
// requests of the pods on it: those bound to it (pod-index.ts) and the deviceShifus placed there
// whose pods are not bound yet (assumed.ts). Pure.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { EdgeNodeSpec, EdgeNodeStatus } from '../../shared/crds/edgenode.ts';
import { cpuMillis, parseQuantity } from '../../shared/kube/quantity.ts';
import { blockingTaint, describeTaint, type Toleration } from './taints.ts';

export interface Location {
  readonly zone?: string;
  readonly latitude?: number;
  readonly longitude?: number;
}

export interface CandidateNode {
  readonly name: string;
  /** Why the node cannot take work now; undefined when it can. */
  readonly unavailable?: string;
  readonly location?: Location;
  /** Bytes: allocatable minus pod requests, lowered further to what shifud measured free. */
  readonly freeMemory: number;
  readonly freeCpuMillis: number;
  /** Pods the node may still take: allocatable pods minus those on it; undefined means no limit (pure tests). */
  readonly freePods?: number;
  /** A NoSchedule/NoExecute taint deviceShifu does not tolerate (key=value:Effect); undefined when none. */
  readonly taint?: string;
  /** EdgeDevices (namespace/name) shifud verified online from this node: for a serial device, its port is here. */
  readonly seen?: ReadonlySet<string>;
}

/** What the pods on a node request, and how many they are. */
export interface NodeRequests {
  readonly cpuMillis: number;
  readonly memory: number;
  readonly pods: number;
}

/** Both sums; undefined when neither holds anything. */
export function addRequests(a: NodeRequests | undefined, b: NodeRequests | undefined): NodeRequests | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { cpuMillis: a.cpuMillis + b.cpuMillis, memory: a.memory + b.memory, pods: a.pods + b.pods };
}

/** What a pod's containers request. */
export function podRequests(pod: V1Pod): { readonly cpuMillis: number; readonly memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    const requests = c.resources?.requests ?? {};
    cpu += cpuMillis(requests.cpu ?? 0);
    memory += parseQuantity(requests.memory ?? 0);
  }
  return { cpuMillis: cpu, memory };
}

export interface EdgeNodeView {
  readonly spec?: EdgeNodeSpec;
  readonly status?: EdgeNodeStatus;
}

export interface CandidateContext {
  readonly now: number;
  /** An EdgeNode heartbeat older than this makes its node unavailable. */
  readonly staleMs: number;
  /** Once shifud reports EdgeNodes, a node without one has lost its daemon (or was never an edge node). */
  readonly requireEdgeNode: boolean;
  /** What the deviceShifu pods tolerate (controller configuration). */
  readonly tolerations?: readonly Toleration[];
}

function unavailability(node: V1Node, edgeNode: EdgeNodeView | undefined, context: CandidateContext): string | undefined {
  if (node.spec?.unschedulable === true) return 'cordoned';
  if (edgeNode === undefined && context.requireEdgeNode) return 'no EdgeNode (is shifud running there?)';
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return `Node not Ready${ready?.reason ? ` (${ready.reason})` : ''}`;
  return staleHeartbeat(edgeNode, context);
}

function staleHeartbeat(edgeNode: EdgeNodeView | undefined, context: CandidateContext): string | undefined {
  const heartbeat = edgeNode?.status?.lastHeartbeatTime;
  if (heartbeat === undefined || context.now - Date.parse(heartbeat) <= context.staleMs) return undefined;
  return `shifud heartbeat stale since ${heartbeat}`;
}

export function candidateNode(node: V1Node, edgeNode: EdgeNodeView | undefined, used: NodeRequests | undefined, context: CandidateContext): CandidateNode {
  const allocatable = node.status?.allocatable ?? {};
  const measured = edgeNode?.status?.free ?? {};
  const booked = used ?? { cpuMillis: 0, memory: 0, pods: 0 };
  return {
    name: node.metadata?.name ?? '',
    unavailable: unavailability(node, edgeNode, context),
    location: edgeNode?.spec?.location,
    freeMemory: lowest(parseQuantity(allocatable.memory ?? 0) - booked.memory, measured.memory, parseQuantity),
    // CPU by requests only, as the scheduler counts it: measured idle CPU swings with load and
    // would veto a 10m request on a busy box
    freeCpuMillis: cpuMillis(allocatable.cpu ?? 0) - booked.cpuMillis,
    // the scheduler binds no pod past this count ("Too many pods"), whatever memory is left, and
    // counts a Node that states none as taking none
    freePods: Math.floor(parseQuantity(allocatable.pods ?? 0)) - booked.pods,
    taint: taintOf(node, context.tolerations ?? []),
    seen: seenDevices(edgeNode),
  };
}

function seenDevices(edgeNode: EdgeNodeView | undefined): ReadonlySet<string> | undefined {
  const devices = edgeNode?.status?.devices;
  return devices === undefined ? undefined : new Set(devices.map((d) => `${d.namespace}/${d.name}`));
}

function taintOf(node: V1Node, tolerations: readonly Toleration[]): string | undefined {
  const taint = blockingTaint(node.spec?.taints, tolerations);
  return taint === undefined ? undefined : describeTaint(taint);
}

/** The scheduler's view of memory, lowered to what shifud measured when it reports. */
function lowest(booked: number, measured: string | number | undefined, parse: (q: string | number) => number): number {
  return measured === undefined ? booked : Math.min(booked, parse(measured));
}
