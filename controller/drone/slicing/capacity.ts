// The resources daemon's arithmetic (thesis 7.2.4, DRONE v2 "Resource slicing"): what a cluster
// has free is the allocatable of its ready nodes minus the requests of the pods that hold them;
// the federation is offered `scale` percent of that. Pods are a resource too (the offloading benchmark:
// a node's 110-pod limit stalled offloading while cpu and memory were still offered): each ready
// node's allocatable pods minus the pods bound to it that have not finished. Pods run for other
// clusters are left out here: the host ledger accounts for them, so they are not counted twice.
import { EdgeshifuError } from '../../../shared/errors.ts';
import { atLeastZero, scale, subtract, sum, type Resources } from '../model.ts';

export interface NodeInput {
  readonly name: string;
  readonly ready: boolean;
  /** `pods` absent: the node reports no pod limit (then neither does the cluster). */
  readonly allocatable: Resources;
}

export interface PodInput {
  readonly name: string;
  readonly nodeName?: string;
  readonly phase: string;
  /** cpu and memory the pod requests (the pod itself is one pod). */
  readonly requests: Resources;
  /** Set on pods run on behalf of another cluster (a HostRequest). */
  readonly hostedFor?: string;
}

/** Phases whose pods hold their requests on a node (everything but Succeeded and Failed). */
const HOLDING = new Set(['Pending', 'Running', 'Unknown']);

/** Pods still free: per ready node, allocatable minus the pods that hold it (never below 0 on one node). */
function freePods(ready: readonly NodeInput[], held: readonly PodInput[]): number | undefined {
  if (ready.some((n) => n.allocatable.pods === undefined)) return undefined;
  const bound = new Map<string, number>();
  for (const p of held) if (p.nodeName !== undefined) bound.set(p.nodeName, (bound.get(p.nodeName) ?? 0) + 1);
  return ready.reduce((total, n) => total + Math.max(0, (n.allocatable.pods ?? 0) - (bound.get(n.name) ?? 0)), 0);
}

export function clusterFree(nodes: readonly NodeInput[], pods: readonly PodInput[]): Resources {
  const readyNodes = nodes.filter((n) => n.ready);
  const ready = new Set(readyNodes.map((n) => n.name));
  const allocatable = sum(readyNodes.map((n) => ({ cpu: n.allocatable.cpu, memory: n.allocatable.memory })));
  const held = pods.filter((p) => p.nodeName !== undefined && ready.has(p.nodeName) && HOLDING.has(p.phase) && p.hostedFor === undefined);
  const free = atLeastZero(subtract({ cpu: allocatable.cpu, memory: allocatable.memory }, sum(held.map((p) => ({ cpu: p.requests.cpu, memory: p.requests.memory })))));
  const podsLeft = freePods(readyNodes, held);
  return podsLeft === undefined ? free : { ...free, pods: podsLeft };
}

/** What the federation is offered in total (hosted work included): `scalePercent` of what is free, whole pods. */
export function offeredCapacity(free: Resources, scalePercent: number): Resources {
  if (!(scalePercent >= 0 && scalePercent <= 100)) throw new EdgeshifuError('invalid', `scale must be a percentage from 0 to 100, got ${scalePercent}`);
  return scale(free, scalePercent);
}
