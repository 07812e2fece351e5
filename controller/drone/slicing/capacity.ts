// The resources daemon's arithmetic (thesis 7.2.4, DRONE v2 "Resource slicing"): what a cluster
// has free is the allocatable of its ready nodes minus the requests of the pods that hold them;
// the federation is offered `scale` percent of that. Pods run for other clusters are left out
// here: the host ledger accounts for them, so they are not counted twice.
import { EdgeshifuError } from '../../../shared/errors.ts';
import { atLeastZero, scale, subtract, sum, type Resources } from '../model.ts';

export interface NodeInput {
  readonly name: string;
  readonly ready: boolean;
  readonly allocatable: Resources;
}

export interface PodInput {
  readonly name: string;
  readonly nodeName?: string;
  readonly phase: string;
  readonly requests: Resources;
  /** Set on pods run on behalf of another cluster (a HostRequest). */
  readonly hostedFor?: string;
}

/** Phases whose pods hold their requests on a node. */
const HOLDING = new Set(['Pending', 'Running', 'Unknown']);

export function clusterFree(nodes: readonly NodeInput[], pods: readonly PodInput[]): Resources {
  const ready = new Set(nodes.filter((n) => n.ready).map((n) => n.name));
  const allocatable = sum(nodes.filter((n) => n.ready).map((n) => n.allocatable));
  const held = pods.filter((p) => p.nodeName !== undefined && ready.has(p.nodeName) && HOLDING.has(p.phase) && p.hostedFor === undefined);
  return atLeastZero(subtract(allocatable, sum(held.map((p) => p.requests))));
}

/** What the federation is offered in total (hosted work included): `scalePercent` of what is free. */
export function offeredCapacity(free: Resources, scalePercent: number): Resources {
  if (!(scalePercent >= 0 && scalePercent <= 100)) throw new EdgeshifuError('invalid', `scale must be a percentage from 0 to 100, got ${scalePercent}`);
  return scale(free, scalePercent);
}
