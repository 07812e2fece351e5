// The consumer's virtual node per contract (thin shell over virtual-node.ts): Contract → queue →
// reconcile(key) → the Node, its status and Lease renewed as a kubelet would, and the Allocation
// Inactive → Active once the node is Ready. When the contract ends, is withdrawn or goes, the node
// is cordoned, its pods deleted (the pod reconciler deletes them on the provider too), and then it
// is removed with its Lease; the Allocation is Released.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { Informer } from '../../../shared/kube/informer.ts';
import type { Logger } from '../../../shared/log.ts';
import { API_VERSION, GROUP, VERSION } from '../../../shared/crds/resources.ts';
import type { ReconcileResult } from '../../runner.ts';
import { BUYER_LABEL, SOLVER_LABEL } from '../buyer-records.ts';
import { pathOf, type PeeringApi } from './kube.ts';
import { allocationPhase, contractLive, CONTRACT_ANNOTATION, nodeLease, RENEW_MS, virtualNode, virtualNodeName, virtualNodeStatus, type ContractResource } from './virtual-node.ts';

export interface NodeReconcilerDeps {
  readonly api: PeeringApi;
  readonly contracts: Informer<ContractResource>;
  readonly nodes: Informer<V1Node>;
  /** The pods bound to a node (the pod reconciler's cache). */
  readonly podsOn: (node: string) => V1Pod[];
  readonly clock?: () => number;
  /** Told each new phase of a contract's Allocation (the Solver that bought it follows). */
  readonly allocated?: (contract: ContractResource, phase: AllocationPhase, node: string) => Promise<void>;
}

export type AllocationPhase = ReturnType<typeof allocationPhase>['phase'];

/** The buyer's and the Solver's labels, copied from the Contract, so an Allocation is found by its Solver. */
function allocationLabels(contract: ContractResource): Record<string, string> {
  const labels = contract.metadata.labels ?? {};
  return Object.fromEntries([BUYER_LABEL, SOLVER_LABEL].flatMap((k) => (labels[k] === undefined ? [] : [[k, labels[k]]])));
}

const CR_ROOT = `/apis/${GROUP}/${VERSION}`;
const NODES = '/api/v1/nodes';

export class NodeReconciler {
  private readonly deps: NodeReconcilerDeps;
  /** The Allocation status last written per contract, so a renewal writes nothing new. */
  private readonly allocated = new Map<string, string>();

  constructor(deps: NodeReconcilerDeps) {
    this.deps = deps;
  }

  private now(): number { return (this.deps.clock ?? Date.now)(); }

  /** The virtual node of a contract (by the Node's back reference, so a deleted contract still finds it). */
  nodeOf(key: string): V1Node | undefined {
    return this.deps.nodes.list().find((n) => n.metadata?.annotations?.[CONTRACT_ANNOTATION] === key);
  }

  reconcile = async (key: string, log: Logger): Promise<ReconcileResult> => {
    const contract = this.deps.contracts.get(key);
    const now = this.now();
    if (contract === undefined || !contractLive(contract, now)) return this.drain(key, contract, log);
    const name = virtualNodeName(contract);
    const held = this.deps.nodes.get(name);
    await this.deps.api.apply(pathOf('/api/v1', 'nodes', undefined, name), virtualNode(contract, false));
    const node = await this.deps.api.merge<V1Node>(`${NODES}/${encodeURIComponent(name)}/status`, { status: virtualNodeStatus(contract, now, held) });
    await this.deps.api.apply(pathOf('/apis/coordination.k8s.io/v1', 'leases', 'kube-node-lease', name), nodeLease(name, now));
    if (held === undefined) log.info({ node: name, contract: contract.spec.contractID, provider: contract.spec.seller.nodeID }, 'virtual node created');
    await this.allocate(contract, node, now);
    const untilEnd = new Date(contract.spec.expiresAt).getTime() - now + 50;
    return { requeueAfterMs: Math.max(50, Math.min(RENEW_MS, untilEnd)) };
  };

  /** Cordon, delete its pods, then remove the node and its Lease; the Allocation is Released. */
  private async drain(key: string, contract: ContractResource | undefined, log: Logger): Promise<ReconcileResult> {
    const node = contract === undefined ? this.nodeOf(key) : this.deps.nodes.get(virtualNodeName(contract)) ?? this.nodeOf(key);
    const name = node?.metadata?.name;
    if (node !== undefined && name !== undefined) {
      if (node.spec?.unschedulable !== true) await this.cordon(node, name, contract, log);
      const pods = this.deps.podsOn(name);
      for (const pod of pods.filter((p) => p.metadata?.deletionTimestamp === undefined)) {
        await this.deps.api.remove(pathOf('/api/v1', 'pods', pod.metadata?.namespace, pod.metadata?.name));
      }
      if (pods.length > 0) return { requeueAfterMs: 500 };
      await this.deps.api.remove(pathOf('/api/v1', 'nodes', undefined, name));
      await this.deps.api.remove(pathOf('/apis/coordination.k8s.io/v1', 'leases', 'kube-node-lease', name));
      log.info({ node: name }, 'virtual node removed');
    }
    if (contract !== undefined) await this.allocate(contract, undefined, this.now());
    else this.allocated.delete(key);
    return {};
  }

  /** Unschedulable, and NotReady with the reason, so nothing new lands on it while it drains. */
  private async cordon(node: V1Node, name: string, contract: ContractResource | undefined, log: Logger): Promise<void> {
    log.info({ node: name }, 'contract ended: virtual node cordoned and drained');
    if (contract === undefined) {
      await this.deps.api.merge(`${NODES}/${encodeURIComponent(name)}`, { spec: { unschedulable: true } });
      return;
    }
    await this.deps.api.apply(pathOf('/api/v1', 'nodes', undefined, name), virtualNode(contract, true));
    await this.deps.api.merge(`${NODES}/${encodeURIComponent(name)}/status`, { status: virtualNodeStatus(contract, this.now(), node) });
  }

  /** The Allocation for the contract (owned by it), its phase following the node. */
  private async allocate(contract: ContractResource, node: V1Node | undefined, now: number): Promise<void> {
    const namespace = contract.metadata.namespace ?? '';
    const name = contract.metadata.name ?? '';
    const key = `${namespace}/${name}`;
    const { phase, message } = allocationPhase(contract, node, now);
    const said = `${phase}/${message}`;
    if (this.allocated.get(key) === said) return;
    const path = pathOf(CR_ROOT, 'allocations', namespace, name);
    await this.deps.api.apply(path, {
      apiVersion: API_VERSION, kind: 'Allocation',
      metadata: { name, namespace, labels: allocationLabels(contract), ownerReferences: [{ apiVersion: API_VERSION, kind: 'Contract', name, uid: contract.metadata.uid ?? '', controller: true }] },
      spec: { contract: contract.spec.contractID, type: 'VirtualNode', nodeName: virtualNodeName(contract), resources: contract.spec.resources },
    });
    await this.deps.api.merge(`${path}/status`, { status: { phase, message } });
    await this.deps.allocated?.(contract, phase, virtualNodeName(contract));
    this.allocated.set(key, said);
  }
}
