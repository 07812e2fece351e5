// Nodes and pods as the API returns them -> the plain input of capacity.ts, so the resources
// daemon (issue 8 wires the informers) stays a thin shell over pure arithmetic.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { NodeInput, PodInput } from './capacity.ts';
import { cpuMillis, memoryMiB } from './quantity.ts';

/** Label on pods run on behalf of another cluster; its value is that cluster's id. */
export const HOSTED_FOR_LABEL = 'drone.edgeshifu.io/hosted-for';

export function nodeInput(node: V1Node): NodeInput {
  const name = node.metadata?.name ?? '';
  const allocatable = node.status?.allocatable ?? {};
  const ready = (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') && node.spec?.unschedulable !== true;
  return {
    name,
    ready,
    allocatable: { cpu: cpuMillis(allocatable.cpu ?? '0', `node ${name} allocatable cpu`), memory: memoryMiB(allocatable.memory ?? '0', `node ${name} allocatable memory`) },
  };
}

function requests(pod: V1Pod, name: string): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    const asked = c.resources?.requests ?? {};
    cpu += cpuMillis(asked.cpu ?? '0', `pod ${name} cpu request`);
    memory += memoryMiB(asked.memory ?? '0', `pod ${name} memory request`);
  }
  return { cpu, memory };
}

export function podInput(pod: V1Pod): PodInput {
  const name = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  const hostedFor = pod.metadata?.labels?.[HOSTED_FOR_LABEL];
  return {
    name,
    ...(pod.spec?.nodeName === undefined ? {} : { nodeName: pod.spec.nodeName }),
    phase: pod.status?.phase ?? 'Pending',
    requests: requests(pod, name),
    ...(hostedFor === undefined ? {} : { hostedFor }),
  };
}
