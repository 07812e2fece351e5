// Pods indexed for reconcile, kept up to date from the pod informer's events: the summed requests
// of the pods bound to each node, and each device's deviceShifu pods. A reconcile then costs
// O(nodes + the device's own pods) instead of a pass over every pod in the cluster.
// The pod informer hands each update and delete the record it replaces, which is exactly what
// that version added here, so the index takes it back whatever changed in between (node, phase,
// requests, labels) without a copy of every pod of its own (~46 bytes a pod at 10,000).
import { deviceKey, type DeviceRef } from '../bundle/names.ts';
import type { PodRecord } from '../records.ts';
import type { NodeRequests } from './candidates.ts';

export interface NodeTotals extends NodeRequests {
  cpuMillis: number;
  memory: number;
  pods: number;
}

/** Adds (or with -1 takes back) one pod's requests on a node; a node emptied is dropped. */
export function addToNode(nodes: Map<string, NodeTotals>, node: string, requests: { readonly cpuMillis: number; readonly memory: number }, sign: 1 | -1): void {
  const totals = nodes.get(node) ?? { cpuMillis: 0, memory: 0, pods: 0 };
  totals.cpuMillis += sign * requests.cpuMillis;
  totals.memory += sign * requests.memory;
  totals.pods += sign;
  // an emptied node starts again from zero: no rounding left behind by fractional quantities
  if (totals.pods === 0) nodes.delete(node);
  else nodes.set(node, totals);
}

/** Running and pending pods hold their requests on their node; finished ones do not. */
function holdingNode(pod: PodRecord): string | undefined {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed' ? undefined : pod.node;
}

export class PodIndex {
  private pods = 0;
  private readonly nodes = new Map<string, NodeTotals>();
  /** A device's deviceShifu pods: nearly always one, so an array, not a Map per device. */
  private readonly devices = new Map<string, PodRecord[]>();

  /** A pod added, or changed from `previous` (the version last given here). */
  upsert(pod: PodRecord, previous?: PodRecord): void {
    if (previous !== undefined) this.take(previous);
    this.pods += 1;
    const node = holdingNode(pod);
    if (node !== undefined) addToNode(this.nodes, node, pod, 1);
    if (pod.device !== undefined) {
      const pods = this.devices.get(pod.device);
      this.devices.set(pod.device, pods === undefined ? [pod] : [...pods, pod]);
    }
  }

  /**
   * A pod deleted (or gone from the watch's view: finished pods are filtered out server-side), as
   * last given here; nothing when it never was.
   */
  remove(previous: PodRecord | undefined): void {
    if (previous !== undefined) this.take(previous);
  }

  /** The requests and the number of the pods holding resources on a node (live totals: read them at once); undefined when none do. */
  requestsOn(node: string): NodeRequests | undefined {
    return this.nodes.get(node);
  }

  /** A device's deviceShifu pods. */
  podsOf(device: DeviceRef): PodRecord[] {
    return [...(this.devices.get(deviceKey(device)) ?? [])];
  }

  /** Nodes with pods holding resources (for tests and metrics). */
  get nodeCount(): number {
    return this.nodes.size;
  }

  /** Pods indexed. */
  get size(): number {
    return this.pods;
  }

  /** Takes back what a pod's previous version contributed. */
  private take(old: PodRecord): void {
    const key = old.key;
    this.pods -= 1;
    const node = holdingNode(old);
    if (node !== undefined) addToNode(this.nodes, node, old, -1);
    if (old.device !== undefined) {
      const pods = this.devices.get(old.device)?.filter((p) => p.key !== key) ?? [];
      if (pods.length === 0) this.devices.delete(old.device);
      else this.devices.set(old.device, pods);
    }
  }
}
