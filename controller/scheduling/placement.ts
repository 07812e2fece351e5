// Where a device's deviceShifu runs (README.md, "Placement" and "Rescheduling"), as a pure decision:
//  1. attached to a node → that node, or Unknown while it is unavailable, Pending while it has a
//     taint deviceShifu does not tolerate;
//  2. on the network → among nodes with room and no untolerated NoSchedule/NoExecute taint:
//     closest as edgemap/closeness.ts ranks (distance, then zone, then most free memory, then name);
//  2b. a serial device (Modbus RTU) only on a node where shifud found its port (the device among
//     the node's seen devices), attached or not: its port is on one node;
//  3. an existing placement stays unless its node is unavailable or tainted against it (moved as
//     a cordon moves it), or a clearly better node exists (hysteresis) and the cooldown since the
//     last move has passed, so nothing flaps.
import { formatBytes } from '../../shared/kube/quantity.ts';
import type { CandidateNode, Location } from './candidates.ts';
import { distanceKm, hasCoordinates } from './distance.ts';
import { compareCloseness } from '../../edgemap/index.ts';

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
  /** A serial device: its port (for messages) and its key (namespace/name) in the nodes' seen devices. */
  readonly serialPort?: { readonly path: string; readonly device: string };
  /** Where it runs now, and since when (ms since epoch). */
  readonly current?: { readonly node: string; readonly placedAt: number };
}

export type PlacementDecision =
  | { readonly kind: 'placed'; readonly node: string; readonly reason: string; readonly moved: boolean }
  | { readonly kind: 'pending'; readonly reason: 'NoNodeAvailable' | 'AttachedNodeFull' | 'AttachedNodeTainted' | 'SerialPortNotFound'; readonly message: string }
  | { readonly kind: 'unknown'; readonly reason: 'AttachedNodeUnavailable'; readonly message: string };

interface Scored {
  readonly node: CandidateNode;
  /** The node's name, for the one closeness ranking. */
  readonly name: string;
  readonly distanceKm?: number;
  readonly sameZone: boolean;
  /** Free memory with this device's own request given back when it already runs there. */
  readonly freeMemory: number;
  readonly freeCpuMillis: number;
  /** Pods the node may still take, this device's own given back likewise; undefined when unlimited. */
  readonly freePods?: number;
}

// Every device is placed again on each resync, over every node: scoring and comparing add no
// numbers they need not (a sum or difference of doubles is a fresh heap object under --lite-mode).
function score(node: CandidateNode, request: PlacementRequest): Scored {
  const own = request.current?.node === node.name;
  return {
    node,
    name: node.name,
    distanceKm: request.location && node.location ? distanceKm(request.location, node.location) : undefined,
    sameZone: request.location?.zone !== undefined && node.location?.zone === request.location.zone,
    freeMemory: own ? node.freeMemory + request.memory : node.freeMemory,
    freeCpuMillis: own ? node.freeCpuMillis + request.cpuMillis : node.freeCpuMillis,
    freePods: node.freePods === undefined || !own ? node.freePods : node.freePods + 1,
  };
}

function fits(s: Scored, request: PlacementRequest): boolean {
  return s.freeMemory >= request.memory && s.freeCpuMillis >= request.cpuMillis && (s.freePods === undefined || s.freePods >= 1);
}

/** What a deviceShifu needs of a node, for messages. */
function needs(request: PlacementRequest): string {
  return `${formatBytes(request.memory)} memory, ${request.cpuMillis}m CPU and room for one more pod`;
}

/** Negative when a is the better home. */
const compare = compareCloseness;

function why(s: Scored): string {
  if (s.distanceKm !== undefined) return `closest by location (${s.distanceKm.toFixed(2)} km)`;
  if (s.sameZone) return `in the device's zone ${s.node.location?.zone ?? ''}, most free memory (${formatBytes(s.freeMemory)})`;
  return `most free memory (${formatBytes(s.freeMemory)})`;
}

function clearlyBetter(best: Scored, current: Scored, policy: PlacementPolicy): boolean {
  if (best.node.name === current.node.name) return false;
  if (best.distanceKm !== undefined) return best.distanceKm + policy.betterDistanceKm < (current.distanceKm ?? Infinity);
  if (best.sameZone && !current.sameZone) return true;
  if (current.sameZone && !best.sameZone) return false;
  return best.freeMemory >= policy.betterMemoryRatio * Math.max(current.freeMemory, 1);
}

function placeAttached(request: PlacementRequest & { attachedNode: string }, nodes: readonly CandidateNode[]): PlacementDecision {
  const node = nodes.find((n) => n.name === request.attachedNode);
  if (node === undefined) return { kind: 'unknown', reason: 'AttachedNodeUnavailable', message: `attached node ${request.attachedNode} does not exist` };
  if (node.unavailable !== undefined) return { kind: 'unknown', reason: 'AttachedNodeUnavailable', message: `attached node ${node.name} is unavailable: ${node.unavailable}` };
  // naming a node in an EdgeDevice does not override the administrator's taints
  if (node.taint !== undefined) {
    return { kind: 'pending', reason: 'AttachedNodeTainted', message: `attached node ${node.name} has taint ${node.taint}, which deviceShifu does not tolerate: remove the taint, or add a toleration to the controller (--device-shifu-tolerations)` };
  }
  const port = request.serialPort;
  if (port !== undefined && !hasPort(node, port.device)) {
    return { kind: 'pending', reason: 'SerialPortNotFound', message: `attached node ${node.name} has no usable serial port ${port.path}: shifud there finds no character device at that path (see the EdgeDevice's Reachable condition)` };
  }
  const scored = score(node, request);
  if (!fits(scored, request)) {
    const pods = scored.freePods === undefined ? '' : ` and room for ${scored.freePods} more pod(s)`;
    return { kind: 'pending', reason: 'AttachedNodeFull', message: `attached node ${node.name} has ${formatBytes(scored.freeMemory)} memory, ${scored.freeCpuMillis}m CPU free${pods}; deviceShifu needs ${needs(request)}` };
  }
  return { kind: 'placed', node: node.name, reason: `attached to ${node.name}`, moved: false };
}

const hasPort = (node: CandidateNode, device: string): boolean => node.seen?.has(device) === true;

/** Why no node could take the device, counting what ruled each out. */
function nowhere(request: PlacementRequest, nodes: readonly CandidateNode[], available: number): PlacementDecision {
  const port = request.serialPort;
  if (port !== undefined && nodes.length > 0 && !nodes.some((n) => hasPort(n, port.device))) {
    return { kind: 'pending', reason: 'SerialPortNotFound', message: `no node has serial port ${port.path}: shifud on none of the ${nodes.length} node(s) finds a character device at that path (plug the adapter in, or correct serialPath; the EdgeDevice's Reachable condition says what shifud saw)` };
  }
  if (nodes.length === 0) return { kind: 'pending', reason: 'NoNodeAvailable', message: 'no node can run the deviceShifu: the cluster has no nodes' };
  const down = nodes.filter((n) => n.unavailable !== undefined).length;
  const tainted = nodes.length - down - available;
  const taints = tainted === 0 ? '' : `${tainted} with a taint deviceShifu does not tolerate (--device-shifu-tolerations), `;
  return { kind: 'pending', reason: 'NoNodeAvailable', message: `no node can run the deviceShifu: ${down} unavailable, ${taints}${available} without ${needs(request)}` };
}

/** Why a device leaves the node it is on, when that node can no longer take it. */
function lostReason(from: string, nodes: readonly CandidateNode[]): string {
  const node = nodes.find((n) => n.name === from);
  if (node?.unavailable !== undefined) return `${from} ${node.unavailable}`;
  if (node?.taint !== undefined) return `${from} has taint ${node.taint}, not tolerated`;
  return `${from} has no room, no longer the device's serial port, or is gone`;
}

/** The best feasible node, where the device runs now (when that is still feasible), and how many nodes are available. */
interface Survey {
  readonly best?: Scored;
  readonly current?: Scored;
  readonly available: number;
}

/**
 * One pass, no sort: every device is placed again on every resync, and scoring into arrays then
 * sorting them cost ~30 KB of garbage per device under the image's flags (steady state).
 * compare() is a total order (ties by name), so the least is the one a sort would put first.
 */
function survey(request: PlacementRequest, nodes: readonly CandidateNode[]): Survey {
  let best: Scored | undefined;
  let current: Scored | undefined;
  let available = 0;
  for (const node of nodes) {
    if (node.unavailable !== undefined || node.taint !== undefined) continue;
    if (request.serialPort !== undefined && !hasPort(node, request.serialPort.device)) continue;
    available += 1;
    const scored = score(node, request);
    if (!fits(scored, request)) continue;
    if (node.name === request.current?.node) current = scored;
    if (best === undefined || compare(scored, best) < 0) best = scored;
  }
  return { best, current, available };
}

export function place(request: PlacementRequest, nodes: readonly CandidateNode[], policy: PlacementPolicy, now: number): PlacementDecision {
  if (request.attachedNode !== undefined && request.attachedNode !== '') return placeAttached({ ...request, attachedNode: request.attachedNode }, nodes);
  const { best, current, available } = survey(request, nodes);
  if (best === undefined) return nowhere(request, nodes, available);
  if (current !== undefined && staysPut(request, best, current, { policy, now })) {
    return { kind: 'placed', node: current.node.name, reason: why(current), moved: false };
  }
  const from = request.current?.node;
  if (from === undefined) return { kind: 'placed', node: best.node.name, reason: why(best), moved: false };
  const lost = current === undefined ? `; ${lostReason(from, nodes)}` : '';
  return { kind: 'placed', node: best.node.name, reason: why(best) + lost, moved: from !== best.node.name };
}

function staysPut(request: PlacementRequest, best: Scored, current: Scored, at: { policy: PlacementPolicy; now: number }): boolean {
  const placedAt = request.current?.placedAt ?? 0;
  return at.now - placedAt < at.policy.cooldownMs || !clearlyBetter(best, current, at.policy);
}

export { hasCoordinates };
