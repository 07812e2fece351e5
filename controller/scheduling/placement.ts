// Where a device's deviceShifu runs (seed 004, 1.1 and "Reschedule"), as a pure decision:
//  1. attached to a node → that node, or Unknown while it is unavailable;
//  2. on the network → among nodes with room: closest by location when known (coordinates, then
//     zone), else most free memory; ties by name;
//  3. an existing placement stays unless its node is unavailable, or a clearly better node exists
//     (hysteresis) and the cooldown since the last move has passed, so nothing flaps.
import { formatBytes } from '../../shared/kube/quantity.ts';
import type { CandidateNode, Location } from './candidates.ts';
import { distanceKm, hasCoordinates } from './distance.ts';

export interface PlacementPolicy {
  readonly cooldownMs: number;
  readonly betterMemoryRatio: number;
  readonly betterDistanceKm: number;
}

export interface PlacementRequest {
  readonly attachedNode?: string;
  readonly location?: Location;
  readonly cpuMillis: number;
  readonly memory: number;
  /** Where it runs now, and since when (ms since epoch). */
  readonly current?: { readonly node: string; readonly placedAt: number };
}

export type PlacementDecision =
  | { readonly kind: 'placed'; readonly node: string; readonly reason: string; readonly moved: boolean }
  | { readonly kind: 'pending'; readonly reason: 'NoNodeAvailable' | 'AttachedNodeFull'; readonly message: string }
  | { readonly kind: 'unknown'; readonly reason: 'AttachedNodeUnavailable'; readonly message: string };

interface Scored {
  readonly node: CandidateNode;
  readonly distance?: number;
  readonly sameZone: boolean;
  /** Free memory with this device's own request given back when it already runs there. */
  readonly freeMemory: number;
  readonly freeCpuMillis: number;
}

function score(node: CandidateNode, request: PlacementRequest): Scored {
  const own = request.current?.node === node.name;
  return {
    node,
    distance: request.location && node.location ? distanceKm(request.location, node.location) : undefined,
    sameZone: request.location?.zone !== undefined && node.location?.zone === request.location.zone,
    freeMemory: node.freeMemory + (own ? request.memory : 0),
    freeCpuMillis: node.freeCpuMillis + (own ? request.cpuMillis : 0),
  };
}

function fits(s: Scored, request: PlacementRequest): boolean {
  return s.freeMemory >= request.memory && s.freeCpuMillis >= request.cpuMillis;
}

/** Negative when a is the better home. */
function compare(a: Scored, b: Scored): number {
  const da = a.distance ?? Infinity;
  const db = b.distance ?? Infinity;
  if (da !== db) return da - db;
  if (a.sameZone !== b.sameZone) return a.sameZone ? -1 : 1;
  if (a.freeMemory !== b.freeMemory) return b.freeMemory - a.freeMemory;
  return a.node.name < b.node.name ? -1 : a.node.name > b.node.name ? 1 : 0;
}

function why(s: Scored): string {
  if (s.distance !== undefined) return `closest by location (${s.distance.toFixed(2)} km)`;
  if (s.sameZone) return `in the device's zone ${s.node.location?.zone ?? ''}, most free memory (${formatBytes(s.freeMemory)})`;
  return `most free memory (${formatBytes(s.freeMemory)})`;
}

function clearlyBetter(best: Scored, current: Scored, policy: PlacementPolicy): boolean {
  if (best.node.name === current.node.name) return false;
  if (best.distance !== undefined) return best.distance + policy.betterDistanceKm < (current.distance ?? Infinity);
  if (best.sameZone && !current.sameZone) return true;
  if (current.sameZone && !best.sameZone) return false;
  return best.freeMemory >= policy.betterMemoryRatio * Math.max(current.freeMemory, 1);
}

function placeAttached(request: PlacementRequest & { attachedNode: string }, nodes: readonly CandidateNode[]): PlacementDecision {
  const node = nodes.find((n) => n.name === request.attachedNode);
  if (node === undefined) return { kind: 'unknown', reason: 'AttachedNodeUnavailable', message: `attached node ${request.attachedNode} does not exist` };
  if (node.unavailable !== undefined) return { kind: 'unknown', reason: 'AttachedNodeUnavailable', message: `attached node ${node.name} is unavailable: ${node.unavailable}` };
  const scored = score(node, request);
  if (!fits(scored, request)) {
    return { kind: 'pending', reason: 'AttachedNodeFull', message: `attached node ${node.name} has ${formatBytes(scored.freeMemory)} memory and ${scored.freeCpuMillis}m CPU free; deviceShifu requests ${formatBytes(request.memory)} and ${request.cpuMillis}m` };
  }
  return { kind: 'placed', node: node.name, reason: `attached to ${node.name}`, moved: false };
}

export function place(request: PlacementRequest, nodes: readonly CandidateNode[], policy: PlacementPolicy, now: number): PlacementDecision {
  if (request.attachedNode !== undefined && request.attachedNode !== '') return placeAttached({ ...request, attachedNode: request.attachedNode }, nodes);
  const available = nodes.filter((n) => n.unavailable === undefined).map((n) => score(n, request));
  const feasible = available.filter((s) => fits(s, request)).sort(compare);
  const current = request.current === undefined ? undefined : feasible.find((s) => s.node.name === request.current?.node);
  const best = feasible[0];
  if (best === undefined) {
    const detail = nodes.length === 0 ? 'the cluster has no nodes' : `${nodes.length - available.length} unavailable, ${available.length} without ${formatBytes(request.memory)} memory and ${request.cpuMillis}m CPU free`;
    return { kind: 'pending', reason: 'NoNodeAvailable', message: `no node can run the deviceShifu: ${detail}` };
  }
  if (current !== undefined && staysPut(request, best, current, { policy, now })) {
    return { kind: 'placed', node: current.node.name, reason: why(current), moved: false };
  }
  const from = request.current?.node;
  if (from === undefined) return { kind: 'placed', node: best.node.name, reason: why(best), moved: false };
  const lost = current === undefined ? `; ${from} ${nodes.find((n) => n.name === from)?.unavailable ?? 'has no room or is gone'}` : '';
  return { kind: 'placed', node: best.node.name, reason: why(best) + lost, moved: from !== best.node.name };
}

function staysPut(request: PlacementRequest, best: Scored, current: Scored, at: { policy: PlacementPolicy; now: number }): boolean {
  const placedAt = request.current?.placedAt ?? 0;
  return at.now - placedAt < at.policy.cooldownMs || !clearlyBetter(best, current, at.policy);
}

export { hasCoordinates };
