// Nodes and pods as the API returns them -> the plain input of capacity.ts, so the resources
// daemon (controller/offload/ wires the informers) stays a thin shell over pure arithmetic.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { EdgeshifuError, errorMessage } from '../../../shared/errors.ts';
import { cpuMillis, parseQuantity } from '../../../shared/kube/quantity.ts';
import type { NodeInput, PodInput } from './capacity.ts';

/** Label on pods run on behalf of another cluster; its value is that cluster's id. */
export const HOSTED_FOR_LABEL = 'drone.edgeshifu.io/hosted-for';

/**
 * Label on a pod a REAR buyer carried here (controller/rear/peering/pod-carry.ts); its value is the
 * buyer. Its contract already holds its resources in DRONE's host ledger (a `rear.` entry), so the
 * pod is treated as hosted work: counting it as used too would take it from the slice twice.
 */
export const CARRIED_FOR_LABEL = 'rear.edgeshifu.io/consumer';

/** Label of REAR's virtual nodes (controller/rear/peering/virtual-node.ts): capacity bought from another cluster, not this one's to sell. */
export const VIRTUAL_NODE_LABEL = 'rear.edgeshifu.io/contract';

function bought(node: V1Node): boolean {
  return node.metadata?.labels?.[VIRTUAL_NODE_LABEL] !== undefined;
}

/** A quantity in DRONE's units (cpu in millicores, memory in MiB); a malformed one is refused naming `what`. */
export function quantityOf(quantity: string | number, unit: 'cpu' | 'memory', what: string): number {
  try {
    return unit === 'cpu' ? cpuMillis(quantity) : parseQuantity(quantity) / 2 ** 20;
  } catch (err) {
    throw new EdgeshifuError('invalid', `${what}: ${errorMessage(err)}`);
  }
}

export function nodeInput(node: V1Node): NodeInput {
  const name = node.metadata?.name ?? '';
  const allocatable = node.status?.allocatable ?? {};
  const ready = !bought(node) && (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') && node.spec?.unschedulable !== true;
  const cpu = quantityOf(allocatable.cpu ?? '0', 'cpu', `node ${name} allocatable cpu`);
  const memory = quantityOf(allocatable.memory ?? '0', 'memory', `node ${name} allocatable memory`);
  const pods = allocatable.pods === undefined ? undefined : podCount(allocatable.pods, `node ${name} allocatable pods`);
  return { name, ready, allocatable: pods === undefined ? { cpu, memory } : { cpu, memory, pods } };
}

/** A pod count ("110"); a malformed or negative one is refused naming `what`. */
function podCount(quantity: string, what: string): number {
  let count: number;
  try {
    count = parseQuantity(quantity);
  } catch (err) {
    throw new EdgeshifuError('invalid', `${what}: ${errorMessage(err)}`);
  }
  if (!(count >= 0)) throw new EdgeshifuError('invalid', `${what}: must not be negative, got ${quantity}`);
  return Math.floor(count);
}

function requests(pod: V1Pod, name: string): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    const asked = c.resources?.requests ?? {};
    cpu += quantityOf(asked.cpu ?? '0', 'cpu', `pod ${name} cpu request`);
    memory += quantityOf(asked.memory ?? '0', 'memory', `pod ${name} memory request`);
  }
  return { cpu, memory };
}

export function podInput(pod: V1Pod): PodInput {
  const name = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  const hostedFor = pod.metadata?.labels?.[HOSTED_FOR_LABEL] ?? pod.metadata?.labels?.[CARRIED_FOR_LABEL];
  return {
    name,
    ...(pod.spec?.nodeName === undefined ? {} : { nodeName: pod.spec.nodeName }),
    phase: pod.status?.phase ?? 'Pending',
    requests: requests(pod, name),
    ...(hostedFor === undefined ? {} : { hostedFor }),
  };
}
