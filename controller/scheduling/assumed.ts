// deviceShifus placed on a node whose pods are not bound there yet, as kube-scheduler "assumes" a
// pod it has placed. Between a placement and its pod's binding (the Deployment, its ReplicaSet and
// the scheduler in turn; seconds in a burst) the pod index does not count them, so without this
// every placement of a burst sees the same free node and overfills it. A device is forgotten once
// its pod is bound on that node (the pod index counts it then), when it is removed, and while it
// is placed again (its own assumption must not count against it).
import type { NodeRequests } from './candidates.ts';
import { addToNode, type NodeTotals } from './pod-index.ts';

interface Assumption {
  readonly node: string;
  readonly cpuMillis: number;
  readonly memory: number;
}

export class AssumedPlacements {
  private readonly byDevice = new Map<string, Assumption>();
  private readonly byNode = new Map<string, NodeTotals>();
  private changes = 0;

  /** The device (namespace/name) is placed on `node`, asking `requests`, and its pod is not bound there yet. */
  assume(device: string, node: string, requests: { readonly cpuMillis: number; readonly memory: number }): void {
    const old = this.byDevice.get(device);
    if (old?.node === node && old.cpuMillis === requests.cpuMillis && old.memory === requests.memory) return;
    if (old !== undefined) this.add(old, -1);
    const assumption = { node, cpuMillis: requests.cpuMillis, memory: requests.memory };
    this.byDevice.set(device, assumption);
    this.add(assumption, 1);
  }

  /**
   * A pod of the device is bound to `node`: from then the pod index counts it, so the assumption
   * there ends at once (not at the device's next reconcile, which would count it twice meanwhile).
   */
  bound(device: string, node: string): void {
    if (this.byDevice.get(device)?.node === node) this.forget(device);
  }

  /** The device's pod is bound, or the device is gone, not placed, or being placed again. */
  forget(device: string): void {
    const old = this.byDevice.get(device);
    if (old === undefined) return;
    this.byDevice.delete(device);
    this.add(old, -1);
  }

  /** What the devices assumed on a node request, and how many they are (live totals: read them at once). */
  on(node: string): NodeRequests | undefined {
    return this.byNode.get(node);
  }

  /** Moves on every change, so cached candidates are rebuilt. */
  get version(): number {
    return this.changes;
  }

  get size(): number {
    return this.byDevice.size;
  }

  private add(assumption: Assumption, sign: 1 | -1): void {
    this.changes += 1;
    addToNode(this.byNode, assumption.node, assumption, sign);
  }
}
