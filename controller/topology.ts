// What the reconcilers tell the edgeMap (devices and nodes added and removed): a narrow port, so reconcilers do not depend on the graph library.
import type { EdgeDeviceSpec, EdgeDevicePhase } from '../shared/crds/edgedevice.ts';
import type { EdgeNodeSpec, EdgeNodeStatus } from '../shared/crds/edgenode.ts';
import type { LINK_TYPES } from '../shared/crds/schema.ts';
import type { ComponentPhase } from '../shared/crds/drone.ts';

export interface DeviceFacts {
  readonly spec: EdgeDeviceSpec;
  readonly nodeName?: string;
  readonly phase?: EdgeDevicePhase;
  readonly url?: string;
  /** Nodes that see the device, as shifud reports them. */
  readonly links?: ReadonlyArray<{ readonly node: string; readonly type: (typeof LINK_TYPES)[number] }>;
}

export interface NodeFacts {
  readonly spec?: EdgeNodeSpec;
  readonly status?: EdgeNodeStatus;
  readonly unavailable?: string;
}

/** A neighbour cluster, from its Federation. */
export interface ClusterFacts {
  readonly phase: 'Peered' | 'Unreachable' | 'Unknown';
  readonly broker?: string;
  readonly message?: string;
}

/** A component of a DroneFederatedDeployment that runs on a neighbour (its status says which). */
export interface OffloadFacts {
  readonly component: string;
  readonly cluster: string;
  readonly phase?: ComponentPhase;
  readonly endpoint?: string;
}

export interface Topology {
  upsertDevice(key: string, facts: DeviceFacts): void;
  removeDevice(key: string): void;
  upsertNode(name: string, facts: NodeFacts): void;
  removeNode(name: string): void;
  upsertCluster(clusterId: string, facts: ClusterFacts): void;
  removeCluster(clusterId: string): void;
  /** The offloaded components of one DroneFederatedDeployment (namespace/name), replacing those it had. */
  setOffloads(deployment: string, offloads: readonly OffloadFacts[]): void;
}

/** For a controller run without an edgeMap (tests of reconciliation alone). */
export const NO_TOPOLOGY: Topology = {
  upsertDevice: () => undefined,
  removeDevice: () => undefined,
  upsertNode: () => undefined,
  removeNode: () => undefined,
  upsertCluster: () => undefined,
  removeCluster: () => undefined,
  setOffloads: () => undefined,
};
