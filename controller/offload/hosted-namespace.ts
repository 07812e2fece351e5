// The namespace a host keeps for one neighbour's work, as plain data (pure): labelled to enforce
// the neighbour's Pod Security level, a ResourceQuota and LimitRange equal to the slices reserved
// for its HostRequests (so it gets what was agreed and no more), and a NetworkPolicy that admits
// only the hosted components' exposed ports and lets them reach nothing but each other, DNS and
// the addresses of their own dependencies: the host's own namespaces are cut off.
import { isIP } from 'node:net';
import type { KubernetesObject, V1Namespace, V1NetworkPolicy, V1NetworkPolicyPeer, V1NetworkPolicyPort, V1NetworkPolicyEgressRule, V1ResourceQuota } from '@kubernetes/client-node';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../bundle/names.ts';
import { HOSTED_FOR_LABEL } from '../drone/slicing/kube-input.ts';
import type { Resources } from '../drone/model.ts';
import type { HostRequest } from './objects.ts';
import type { PodSecurityLevel } from './pod-security.ts';
import { namedPorts, workloadValidator } from './workload.ts';

/** Pod Security admission's labels: enforced, and the same level warned and audited, at the API server's own version of the standard. */
export function podSecurityLabels(level: PodSecurityLevel): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const mode of ['enforce', 'warn', 'audit'] as const) {
    labels[`pod-security.kubernetes.io/${mode}`] = level;
    labels[`pod-security.kubernetes.io/${mode}-version`] = 'latest';
  }
  return labels;
}

export interface HostedNamespaceInput {
  readonly origin: string;
  readonly namespace: string;
  readonly level: PodSecurityLevel;
  /** The neighbour's HostRequests in the namespace, each with what its slice reserves. */
  readonly requests: ReadonlyArray<{ readonly request: HostRequest; readonly reserved: Resources }>;
}

export interface HostedNamespaceObjects {
  readonly namespace: V1Namespace;
  readonly quota: V1ResourceQuota;
  readonly limits: LimitRange;
  readonly policy: V1NetworkPolicy;
}

/** A LimitRange as the API takes it (the client library's type names its `default` field `_default`). */
export interface LimitRange extends KubernetesObject {
  spec: { limits: Array<{ type: string; max?: Record<string, string>; default?: Record<string, string>; defaultRequest?: Record<string, string> }> };
}

export const GUARD_NAME = 'edgeshifu-hosted';

function total(requests: HostedNamespaceInput['requests']): { cpu: number; memory: number; pods: number } {
  return requests.reduce((sum, { reserved }) => ({ cpu: sum.cpu + reserved.cpu, memory: sum.memory + reserved.memory, pods: sum.pods + (reserved.pods ?? 1) }), { cpu: 0, memory: 0, pods: 0 });
}

/** The container ports the hosted components expose (their Services' target ports). */
function exposedPorts(requests: HostedNamespaceInput['requests']): V1NetworkPolicyPort[] {
  const seen = new Map<string, V1NetworkPolicyPort>();
  for (const { request } of requests) {
    if (!workloadValidator.is(request.spec.workload)) continue;
    for (const p of namedPorts(request.spec.workload.ports)) {
      const port = p.targetPort ?? p.port;
      seen.set(`${p.protocol}/${String(port)}`, { protocol: p.protocol, port });
    }
  }
  return [...seen.values()].sort((a, b) => Number(a.port) - Number(b.port) || (a.protocol ?? '').localeCompare(b.protocol ?? ''));
}

/** Where the hosted components' dependencies are reached (an address and its ports), known by IP. */
function dependencyRules(requests: HostedNamespaceInput['requests']): V1NetworkPolicyEgressRule[] {
  const byAddress = new Map<string, Map<string, V1NetworkPolicyPort>>();
  for (const { request } of requests) {
    for (const [dependency, endpoint] of Object.entries(request.spec.dependencies ?? {})) {
      const at = endpoint.lastIndexOf(':');
      const address = endpoint.slice(0, at);
      if (isIP(address) === 0) continue;
      const ports = byAddress.get(address) ?? new Map<string, V1NetworkPolicyPort>();
      const reachable = request.spec.dependencyPorts?.[dependency] ?? [{ at: Number(endpoint.slice(at + 1)), protocol: 'TCP' as const }];
      for (const p of reachable) ports.set(`${p.protocol ?? 'TCP'}/${String(p.at)}`, { protocol: p.protocol ?? 'TCP', port: p.at });
      byAddress.set(address, ports);
    }
  }
  return [...byAddress.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([address, ports]): V1NetworkPolicyEgressRule => ({
    to: [{ ipBlock: { cidr: `${address}/${isIP(address) === 6 ? '128' : '32'}` } } satisfies V1NetworkPolicyPeer],
    ports: [...ports.values()].sort((a, b) => Number(a.port) - Number(b.port)),
  }));
}

export function hostedNamespaceObjects(input: HostedNamespaceInput): HostedNamespaceObjects {
  const { origin, namespace, level, requests } = input;
  const labels = { [LABEL_MANAGED_BY]: MANAGED_BY, [HOSTED_FOR_LABEL]: origin };
  const metadata = { name: GUARD_NAME, namespace, labels };
  const sum = total(requests);
  // as the API server writes them back: "0", not "0m"
  const slice = { cpu: sum.cpu === 0 ? '0' : `${String(sum.cpu)}m`, memory: sum.memory === 0 ? '0' : `${String(sum.memory)}Mi` };
  const exposed = exposedPorts(requests);
  return {
    namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { ...labels, ...podSecurityLabels(level) } } },
    quota: {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata,
      spec: { hard: { 'requests.cpu': slice.cpu, 'requests.memory': slice.memory, pods: String(sum.pods) } },
    },
    // a container that says nothing requests nothing and is limited to the whole slice; none may ask for more than the slice
    limits: {
      apiVersion: 'v1', kind: 'LimitRange', metadata,
      spec: { limits: [{ type: 'Container', max: slice, default: slice, defaultRequest: { cpu: '0', memory: '0' } }] },
    },
    policy: {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata,
      spec: {
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
        ingress: exposed.length === 0 ? [] : [{ ports: exposed }],
        egress: [
          { to: [{ podSelector: {} }] },
          {
            to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
            ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }],
          },
          ...dependencyRules(requests),
        ],
      },
    },
  };
}
