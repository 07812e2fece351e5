// The consumer's virtual node for a contract (pure): the Node, its status and Lease as a kubelet
// would keep them, whether the contract is live, and the Allocation's phase. Capacity is what the
// contract bought; a NoSchedule taint keeps every pod off it that does not ask for it by name.
import { createHash } from 'node:crypto';
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import type { Static } from '@sinclair/typebox';
import type { ContractSpec, ContractStatus } from '../../../shared/crds/rear.ts';
import type { CustomObject } from '../../../shared/crds/resources.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../../bundle/names.ts';
import { isoTime } from '../../../shared/time.ts';

export type ContractResource = CustomObject<ContractSpec, Static<typeof ContractStatus>>;

/** The taint key (its value is the contract id) and the labels the virtual node carries. */
export const CONTRACT_TAINT = 'rear.edgeshifu.io/contract';
export const LABELS = {
  contract: 'rear.edgeshifu.io/contract',
  provider: 'rear.edgeshifu.io/provider',
  domain: 'rear.edgeshifu.io/domain',
  type: 'type',
  role: 'kubernetes.io/role',
} as const;
/** The Contract a virtual node stands for, as namespace/name (a Node cannot own a namespaced object's child). */
export const CONTRACT_ANNOTATION = 'rear.edgeshifu.io/contract-ref';
/** How long a renewal holds, and how often the controller renews (a kubelet's defaults: 40 s and a quarter of it). */
export const LEASE_SECONDS = 40;
export const RENEW_MS = 10_000;

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** A label value as given, or, when it is not one (too long, odd characters), a digest of it. */
export function labelValue(value: string): string {
  if (value.length <= 63 && LABEL_VALUE.test(value)) return value;
  return `h-${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
}

export function virtualNodeName(contract: ContractResource): string {
  return `rear-${contract.spec.contractID}`.slice(0, 253).replace(/[-.]+$/, '');
}

/** Live: not ended or withdrawn, not being deleted, and before its expiry. */
export function contractLive(contract: ContractResource, now: number): boolean {
  const phase = contract.status?.phase;
  if (phase === 'Ended' || phase === 'Withdrawn') return false;
  if (contract.metadata.deletionTimestamp !== undefined) return false;
  return new Date(contract.spec.expiresAt).getTime() > now;
}

/** Why a contract is not live, for the Allocation's message. */
export function endReason(contract: ContractResource, now: number): string {
  const phase = contract.status?.phase;
  if (phase === 'Withdrawn') return `contract ${contract.spec.contractID} was withdrawn`;
  if (phase === 'Ended') return `contract ${contract.spec.contractID} ended`;
  if (contract.metadata.deletionTimestamp !== undefined) return `contract ${contract.spec.contractID} is being deleted`;
  return new Date(contract.spec.expiresAt).getTime() <= now ? `contract ${contract.spec.contractID} expired at ${contract.spec.expiresAt}` : 'live';
}

/** The contract's resources as a Node's capacity (and allocatable: nothing is kept back). */
export function capacityOf(contract: ContractResource): Record<string, string> {
  const r = contract.spec.resources;
  return {
    cpu: String(r.cpu), memory: String(r.memory), pods: String(r.pods ?? 110),
    ...(r.storage === undefined ? {} : { 'ephemeral-storage': String(r.storage) }),
    ...(r.gpu === undefined || String(r.gpu) === '0' ? {} : { 'nvidia.com/gpu': String(r.gpu) }),
  };
}

/** The Node's object part: labels, the contract's taint and the way back to the contract. */
export function virtualNode(contract: ContractResource, cordoned: boolean): V1Node {
  const name = virtualNodeName(contract);
  const { spec } = contract;
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name,
      labels: {
        [LABEL_MANAGED_BY]: MANAGED_BY,
        [LABELS.type]: 'virtual-node',
        [LABELS.role]: 'agent',
        [LABELS.contract]: labelValue(spec.contractID),
        [LABELS.provider]: labelValue(spec.seller.nodeID),
        [LABELS.domain]: labelValue(spec.seller.domain),
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': labelValue(spec.architecture),
        'node.kubernetes.io/exclude-from-external-load-balancers': 'true',
      },
      annotations: { [CONTRACT_ANNOTATION]: `${contract.metadata.namespace ?? ''}/${contract.metadata.name ?? ''}` },
    },
    spec: {
      taints: [{ key: CONTRACT_TAINT, value: labelValue(spec.contractID), effect: 'NoSchedule' }],
      unschedulable: cordoned,
    },
  };
}

interface ConditionArgs { type: string; status: 'True' | 'False'; reason: string; message: string }

/** A condition as now, its transition time kept while its status holds. */
function condition(args: ConditionArgs, now: string, held: readonly V1NodeCondition[] | undefined): V1NodeCondition {
  const { type, status, reason, message } = args;
  const before = held?.find((c) => c.type === type);
  const since = before?.status === status && before.lastTransitionTime !== undefined ? new Date(before.lastTransitionTime).toISOString() : now;
  return { type, status, reason, message, lastHeartbeatTime: now as unknown as Date, lastTransitionTime: since as unknown as Date };
}

/** The status a kubelet would report: capacity, the pressure conditions False and Ready while the contract lives. */
export function virtualNodeStatus(contract: ContractResource, now: number, held?: V1Node): Record<string, unknown> {
  const at = isoTime(now);
  const live = contractLive(contract, now);
  const conditions = held?.status?.conditions;
  const capacity = capacityOf(contract);
  return {
    capacity, allocatable: capacity,
    conditions: [
      condition({ type: 'MemoryPressure', status: 'False', reason: 'ContractCapacity', message: 'the provider holds the contract\'s memory' }, at, conditions),
      condition({ type: 'DiskPressure', status: 'False', reason: 'ContractCapacity', message: 'the provider holds the contract\'s storage' }, at, conditions),
      condition({ type: 'PIDPressure', status: 'False', reason: 'ContractCapacity', message: 'the provider runs the pods' }, at, conditions),
      condition({ type: 'Ready', status: live ? 'True' : 'False', reason: live ? 'ContractLive' : 'ContractEnded', message: live ? `pods run on ${contract.spec.seller.nodeID} under contract ${contract.spec.contractID}` : endReason(contract, now) }, at, conditions),
    ],
    nodeInfo: {
      architecture: contract.spec.architecture, operatingSystem: 'linux', kubeletVersion: 'v1.0.0-edgeshifu-rear', kubeProxyVersion: '',
      containerRuntimeVersion: 'rear://', kernelVersion: '', osImage: `REAR virtual node (${contract.spec.seller.nodeID})`, machineID: '', systemUUID: '', bootID: '',
    },
    daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
  };
}

/** The node's Lease in kube-node-lease, renewed as a kubelet renews its own. */
export function nodeLease(node: string, now: number): Record<string, unknown> {
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: { name: node, namespace: 'kube-node-lease', labels: { [LABEL_MANAGED_BY]: MANAGED_BY } },
    spec: { holderIdentity: node, leaseDurationSeconds: LEASE_SECONDS, renewTime: new Date(now).toISOString().replace('Z', '000Z') },
  };
}

export function nodeReady(node: V1Node | undefined): boolean {
  return node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** The Allocation's phase: Active while the virtual node is Ready, Inactive before (and when it is not), Released once the contract ended. */
export function allocationPhase(contract: ContractResource, node: V1Node | undefined, now: number): { phase: 'Inactive' | 'Active' | 'Released'; message: string } {
  if (!contractLive(contract, now)) return { phase: 'Released', message: `${endReason(contract, now)}: the virtual node is drained and removed` };
  if (nodeReady(node)) return { phase: 'Active', message: `virtual node ${virtualNodeName(contract)} is Ready` };
  return { phase: 'Inactive', message: `waiting for virtual node ${virtualNodeName(contract)} to be Ready` };
}
