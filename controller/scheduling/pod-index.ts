// Pods indexed for reconcile, kept up to date from the pod informer's events: the summed requests
// of the pods bound to each node, and each device's deviceShifu pods. A reconcile then costs
// O(nodes + the device's own pods) instead of a pass over every pod in the cluster (issue 3).
// Each pod's last contribution is remembered, so an update or delete takes back exactly what its
// previous version added, whatever changed in between (node, phase, requests, labels).
import type { V1Pod } from '@kubernetes/client-node';
import { deviceOf, type DeviceRef } from '../bundle/names.ts';
import { holdsResources, podRequests, type NodeRequests } from './candidates.ts';

interface Contribution {
  /** The node whose totals hold this pod's requests; undefined while it holds none. */
  readonly node?: string;
  readonly requests: NodeRequests;
  /** The device whose deviceShifu this pod runs, as `namespace/name`. */
  readonly device?: string;
}

interface NodeTotals {
  cpuMillis: number;
  memory: number;
  pods: number;
}

function podKey(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

function deviceKeyOf(ref: DeviceRef): string {
  return `${ref.namespace}/${ref.name}`;
}

export class PodIndex {
  /** Pods of this namespace with a device's labels are that device's deviceShifu pods. */
  private readonly deviceShifuNamespace: string;
  private readonly contributions = new Map<string, Contribution>();
  private readonly nodes = new Map<string, NodeTotals>();
  private readonly devices = new Map<string, Map<string, V1Pod>>();

  constructor(deviceShifuNamespace: string) {
    this.deviceShifuNamespace = deviceShifuNamespace;
  }

  /** A pod added or changed. */
  upsert(pod: V1Pod): void {
    const key = podKey(pod);
    const owner = pod.metadata?.namespace === this.deviceShifuNamespace ? deviceOf(pod.metadata.labels) : undefined;
    const contribution: Contribution = {
      node: holdsResources(pod) ? pod.spec?.nodeName : undefined,
      requests: podRequests(pod),
      device: owner === undefined ? undefined : deviceKeyOf(owner),
    };
    this.take(key);
    this.contributions.set(key, contribution);
    if (contribution.node !== undefined) this.addTo(contribution.node, contribution.requests, 1);
    if (contribution.device !== undefined) {
      const pods = this.devices.get(contribution.device) ?? new Map<string, V1Pod>();
      pods.set(key, pod);
      this.devices.set(contribution.device, pods);
    }
  }

  /** A pod deleted (or gone from the watch's view: finished pods are filtered out server-side). */
  remove(pod: V1Pod): void {
    this.take(podKey(pod));
  }

  /** The requests of the pods holding resources on a node; undefined when none do. */
  requestsOn(node: string): NodeRequests | undefined {
    const totals = this.nodes.get(node);
    return totals === undefined ? undefined : { cpuMillis: totals.cpuMillis, memory: totals.memory };
  }

  /** A device's deviceShifu pods. */
  podsOf(device: DeviceRef): V1Pod[] {
    return [...(this.devices.get(deviceKeyOf(device))?.values() ?? [])];
  }

  /** Nodes with pods holding resources (for tests and metrics). */
  get nodeCount(): number {
    return this.nodes.size;
  }

  /** Pods indexed. */
  get size(): number {
    return this.contributions.size;
  }

  /** Takes back what a pod's previous version contributed. */
  private take(key: string): void {
    const old = this.contributions.get(key);
    if (old === undefined) return;
    this.contributions.delete(key);
    if (old.node !== undefined) this.addTo(old.node, old.requests, -1);
    if (old.device !== undefined) {
      const pods = this.devices.get(old.device);
      pods?.delete(key);
      if (pods?.size === 0) this.devices.delete(old.device);
    }
  }

  private addTo(node: string, requests: NodeRequests, sign: 1 | -1): void {
    const totals = this.nodes.get(node) ?? { cpuMillis: 0, memory: 0, pods: 0 };
    totals.cpuMillis += sign * requests.cpuMillis;
    totals.memory += sign * requests.memory;
    totals.pods += sign;
    // an emptied node starts again from zero: no rounding left behind by fractional quantities
    if (totals.pods === 0) this.nodes.delete(node);
    else this.nodes.set(node, totals);
  }
}
