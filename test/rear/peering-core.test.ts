// The peering's pure cores: the virtual node and its status from a contract, the Allocation's
// phase, what of a pod travels to the provider, and the provider's pod made from it.
import test from 'ava';
import type { V1Node } from '@kubernetes/client-node';
import { allocationPhase, contractLive, labelValue, virtualNode, virtualNodeName, virtualNodeStatus, type ContractResource } from '../../controller/rear/peering/virtual-node.ts';
import { carriedName, carriedSpec, consumerPodOf, providerPod, reflectedStatus } from '../../controller/rear/peering/pod-carry.ts';
import { clusterFree } from '../../controller/drone/slicing/capacity.ts';
import { nodeInput, podInput } from '../../controller/drone/slicing/kube-input.ts';
import { ledgerEntry } from '../../controller/rear/core/shared-slice.ts';

const NOW = Date.parse('2026-11-27T01:00:00Z');

function contract(over: { expiresAt?: string; phase?: 'Active' | 'Ended' | 'Withdrawn'; domain?: string } = {}): ContractResource {
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'Contract', metadata: { name: 'c1', namespace: 'ns', uid: 'u1' },
    spec: {
      contractID: 'contract-1', transactionID: 'tx-1', flavorID: 'f-1', buyer: 'cons',
      seller: { domain: over.domain ?? 'domain-b', nodeID: 'prov', address: 'https://127.0.0.1:9443' },
      resources: { cpu: '1500m', memory: '2Gi', pods: 6 }, architecture: 'arm64',
      price: { amount: '1', currency: 'EUR', period: 'hourly' },
      startTime: '2026-11-27T00:00:00Z', expiresAt: over.expiresAt ?? '2026-11-27T02:00:00Z',
      peering: { cluster: 'prov', namespace: 'rear-cons' }, signatures: { seller: 'sig' },
    },
    ...(over.phase === undefined ? {} : { status: { phase: over.phase } }),
  };
}

test('the virtual node carries the contract\'s capacity, its taint and the provider\'s labels', (t) => {
  const node = virtualNode(contract(), false);
  t.is(node.metadata?.name, 'rear-contract-1');
  t.deepEqual(node.spec?.taints, [{ key: 'rear.edgeshifu.io/contract', value: 'contract-1', effect: 'NoSchedule' }]);
  t.like(node.metadata?.labels, { type: 'virtual-node', 'kubernetes.io/role': 'agent', 'rear.edgeshifu.io/provider': 'prov', 'rear.edgeshifu.io/domain': 'domain-b', 'kubernetes.io/arch': 'arm64' });
  t.is(node.metadata?.annotations?.['kwok.x-k8s.io/node'], undefined);
  t.is(node.metadata?.annotations?.['rear.edgeshifu.io/contract-ref'], 'ns/c1');
  const status = virtualNodeStatus(contract(), NOW) as { capacity: Record<string, string>; conditions: Array<{ type: string; status: string }> };
  t.deepEqual(status.capacity, { cpu: '1500m', memory: '2Gi', pods: '6' });
  t.like(status.conditions.find((c) => c.type === 'Ready'), { status: 'True' });
  t.true(virtualNode(contract(), true).spec?.unschedulable);
});

test('a domain that is no label value is written as its digest', (t) => {
  const long = `${'a'.repeat(70)}.example`;
  t.regex(labelValue(long), /^h-[0-9a-f]{16}$/);
  t.is(labelValue('domain-b'), 'domain-b');
  t.is(virtualNode(contract({ domain: long }), false).metadata?.labels?.['rear.edgeshifu.io/domain'], labelValue(long));
});

test('a contract is live until it ends, is withdrawn or expires; the Allocation follows the node', (t) => {
  t.true(contractLive(contract(), NOW));
  t.false(contractLive(contract({ phase: 'Withdrawn' }), NOW));
  t.false(contractLive(contract({ phase: 'Ended' }), NOW));
  t.false(contractLive(contract({ expiresAt: '2026-11-27T00:59:59Z' }), NOW));
  const ready: V1Node = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  const notReady: V1Node = { status: { conditions: [{ type: 'Ready', status: 'False' }] } };
  t.is(allocationPhase(contract(), undefined, NOW).phase, 'Inactive');
  t.is(allocationPhase(contract(), ready, NOW).phase, 'Active');
  t.is(allocationPhase(contract(), notReady, NOW).phase, 'Inactive');
  const released = allocationPhase(contract({ expiresAt: '2026-11-27T00:00:01Z' }), ready, NOW);
  t.is(released.phase, 'Released');
  t.regex(released.message, /expired/);
  t.is(virtualNodeName(contract()), 'rear-contract-1');
});

test('what travels: the consumer\'s scheduling, defaults and token stay behind; the provider\'s pod is hardened and finds its way back', (t) => {
  const spec = {
    nodeName: 'rear-contract-1', tolerations: [{ key: 'x', operator: 'Exists' }], schedulerName: 'default-scheduler', dnsPolicy: 'ClusterFirst', priority: 0,
    serviceAccountName: 'default', serviceAccount: 'default', enableServiceLinks: true, restartPolicy: 'Always',
    volumes: [{ name: 'kube-api-access-x', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }, { name: 'scratch', emptyDir: {} }],
    containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'kube-api-access-x', mountPath: '/var/run/secrets' }, { name: 'scratch', mountPath: '/tmp' }] }],
  };
  const carried = carriedSpec(spec);
  t.deepEqual(carried, { enableServiceLinks: true, restartPolicy: 'Always', volumes: [{ name: 'scratch', emptyDir: {} }], containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'scratch', mountPath: '/tmp' }] }] });
  const ref = { namespace: 'apps', name: 'web-1', uid: 'uid-1' };
  const pod = providerPod({ consumer: 'cons', contractId: 'contract-1', namespace: 'rear-cons', pod: ref, spec: carried, level: 'restricted' });
  t.is(pod.metadata?.name, carriedName('cons', ref));
  t.is(pod.spec?.automountServiceAccountToken, false);
  t.like(pod.spec?.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  t.deepEqual(consumerPodOf(pod), { consumer: 'cons', contractId: 'contract-1', ref });
  t.not(carriedName('cons', { ...ref, uid: 'uid-2' }), pod.metadata?.name, 'a pod made again under the same name is another pod');
  const reflected = reflectedStatus({ phase: 'Running', podIP: '10.0.0.7', podIPs: [{ ip: '10.0.0.7' }] });
  t.like(reflected, { phase: 'Running' });
  t.false('podIP' in reflected || 'podIPs' in reflected, 'the provider pod IP is not shown: the consumer\'s EndpointSlice controller would list it under every Service');
});

test('a pod carried under a contract is counted once on the seller: by its contract\'s ledger entry, not again as a pod', (t) => {
  const node = nodeInput({ metadata: { name: 'n1' }, status: { allocatable: { cpu: '8', memory: '16Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] } });
  const spec = { containers: [{ name: 'c', image: 'example.com/c:1', resources: { requests: { cpu: '2', memory: '1Gi' } } }] };
  const made = providerPod({ consumer: 'cons', contractId: 'contract-1', namespace: 'rear-cons', pod: { namespace: 'apps', name: 'web-1', uid: 'uid-1' }, spec, level: 'restricted' });
  const carried = { metadata: made.metadata, spec: { ...spec, nodeName: 'n1' }, status: { phase: 'Running' } };
  const input = podInput(carried);
  t.is(input.hostedFor, 'cons', 'the carried pod is work hosted for the buyer');
  // the contract (3 cpu, 4 GiB) holds its resources in DRONE's ledger; its pod runs inside them
  const free = clusterFree([node], [input]);
  t.deepEqual(free, { cpu: 8000, memory: 16_384, pods: 110 });
  const entry = ledgerEntry('cons', 'contract-1', { cpu: 3000, memory: 4096, pods: 2, storage: 0, gpu: 0 });
  t.is(free.cpu - entry.resources.cpu, 5000, 'what is left for DRONE and REAR: 8 cpu less the contract\'s 3, not less 3 + 2');
  // a plain pod of the same size is the cluster's own work and is counted
  const own = podInput({ metadata: { name: 'own', namespace: 'default' }, spec: { ...spec, nodeName: 'n1' }, status: { phase: 'Running' } });
  t.like(clusterFree([node], [own]), { cpu: 6000 });
});
