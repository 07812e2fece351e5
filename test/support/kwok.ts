// Nodes for tests: plain Node objects that the cluster's KWOK manages (heartbeats, pod status),
// so placement and scale tests run without a kubelet.
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { KWOK_NODE_ANNOTATION } from './controlplane/cluster.ts';

export interface KwokNodeSpec {
  readonly cpu?: string;
  readonly memory?: string;
  readonly pods?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly V1Taint[];
}

export function kwokNode(name: string, spec: KwokNodeSpec = {}): V1Node {
  const capacity = { cpu: spec.cpu ?? '4', memory: spec.memory ?? '8Gi', pods: spec.pods ?? '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node-role.kubernetes.io/edge': '',
        type: 'kwok',
        ...spec.labels,
      },
    },
    spec: { taints: spec.taints ? [...spec.taints] : undefined },
    status: { capacity, allocatable: capacity, nodeInfo: { kubeletVersion: 'fake', architecture: 'amd64', operatingSystem: 'linux', bootID: '', containerRuntimeVersion: '', kernelVersion: '', kubeProxyVersion: '', machineID: '', osImage: '', systemUUID: '' } },
  };
}
