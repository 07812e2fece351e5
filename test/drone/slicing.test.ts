import test from 'ava';
import { clusterFree, offeredCapacity } from '../../controller/drone/slicing/capacity.ts';
import { nodeInput, podInput, quantityOf, HOSTED_FOR_LABEL, VIRTUAL_NODE_LABEL } from '../../controller/drone/slicing/kube-input.ts';
import { reclaim, type HostedComponent } from '../../controller/drone/slicing/reclaim.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import type { V1Node, V1Pod } from '@kubernetes/client-node';

const quantities = [
  { q: '250m', cpu: 250 }, { q: '2', cpu: 2000 }, { q: '1.5', cpu: 1500 }, { q: 3, cpu: 3000 },
];
for (const c of quantities) test(`cpu quantity ${String(c.q)} is ${c.cpu} millicores`, (t) => { t.is(quantityOf(c.q, 'cpu', 'cpu'), c.cpu); });

const memories = [{ q: '1Gi', mib: 1024 }, { q: '512Mi', mib: 512 }, { q: '1048576', mib: 1 }, { q: '1e6', mib: 1e6 / 2 ** 20 }];
for (const c of memories) test(`memory quantity ${c.q} is ${c.mib} MiB`, (t) => { t.is(quantityOf(c.q, 'memory', 'memory'), c.mib); });

test('a malformed quantity is refused naming the field', (t) => {
  const err = t.throws(() => quantityOf('two cores', 'cpu', 'node n1 allocatable cpu'));
  t.true(isEdgeshifuError(err, 'invalid'));
  t.regex(err.message, /node n1 allocatable cpu: "two cores" is not a Kubernetes quantity/);
});

test('capacity is the allocatable of ready nodes minus requests of pods holding them; hosted pods and finished pods do not count', (t) => {
  const nodes = [
    { name: 'n1', ready: true, allocatable: { cpu: 4000, memory: 8192 } },
    { name: 'n2', ready: true, allocatable: { cpu: 2000, memory: 4096 } },
    { name: 'n3', ready: false, allocatable: { cpu: 8000, memory: 8192 } },
  ];
  const pods = [
    { name: 'a', nodeName: 'n1', phase: 'Running', requests: { cpu: 1000, memory: 1024 } },
    { name: 'b', nodeName: 'n2', phase: 'Pending', requests: { cpu: 500, memory: 512 } },
    { name: 'c', nodeName: 'n1', phase: 'Succeeded', requests: { cpu: 3000, memory: 3000 } },
    { name: 'd', nodeName: 'n3', phase: 'Running', requests: { cpu: 100, memory: 100 } },
    { name: 'e', phase: 'Pending', requests: { cpu: 100, memory: 100 } },
    { name: 'f', nodeName: 'n1', phase: 'Running', requests: { cpu: 700, memory: 700 }, hostedFor: 'edge-2' },
  ];
  t.deepEqual(clusterFree(nodes, pods), { cpu: 4500, memory: 10752 });
});

test('the federation is offered the scale percentage of what is free (thesis scale)', (t) => {
  t.deepEqual(offeredCapacity({ cpu: 4000, memory: 1000 }, 50), { cpu: 2000, memory: 500 });
  t.true(isEdgeshifuError(t.throws(() => offeredCapacity({ cpu: 1, memory: 1 }, 150)), 'invalid'));
});

test('nodes and pods as the API returns them become the plain input', (t) => {
  const node = nodeInput({ metadata: { name: 'n1' }, status: { allocatable: { cpu: '3500m', memory: '2Gi' }, conditions: [{ type: 'Ready', status: 'True' }] } });
  t.deepEqual(node, { name: 'n1', ready: true, allocatable: { cpu: 3500, memory: 2048 } });
  const cordoned = nodeInput({ metadata: { name: 'n2' }, spec: { unschedulable: true }, status: { allocatable: { cpu: '1' }, conditions: [{ type: 'Ready', status: 'True' }] } });
  t.false(cordoned.ready);
  const bought = nodeInput({ metadata: { name: 'rear-c1', labels: { [VIRTUAL_NODE_LABEL]: 'c1' } }, status: { allocatable: { cpu: '1' }, conditions: [{ type: 'Ready', status: 'True' }] } });
  t.false(bought.ready, 'a REAR virtual node is capacity bought elsewhere: never offered again');
  const pod = podInput({
    metadata: { name: 'p', namespace: 'ns', labels: { [HOSTED_FOR_LABEL]: 'edge-9' } },
    spec: { nodeName: 'n1', containers: [{ name: 'a', resources: { requests: { cpu: '250m', memory: '128Mi' } } }, { name: 'b', resources: { requests: { cpu: '250m' } } }] },
    status: { phase: 'Running' },
  });
  t.deepEqual(pod, { name: 'ns/p', nodeName: 'n1', phase: 'Running', requests: { cpu: 500, memory: 128 }, hostedFor: 'edge-9' });
});

function hosted(origin: string, component: string, cpu: number, acceptedAt: number): HostedComponent {
  return { origin, app: `${origin}-app`, component, resources: { cpu, memory: 0 }, acceptedAt };
}

test('when the slice shrinks, reclaim takes from the origin most above its share, newest component first', (t) => {
  const all = [hosted('a', 'a1', 1000, 1), hosted('a', 'a2', 1000, 2), hosted('a', 'a3', 1000, 3), hosted('b', 'b1', 1000, 4)];
  const victims = reclaim(all, { cpu: 2000, memory: 0 }, new Map());
  t.deepEqual(victims.map((v) => v.component), ['a3', 'a2']);
});

test('weights decide who is above its share when reclaiming', (t) => {
  const all = [hosted('a', 'a1', 1000, 1), hosted('a', 'a2', 1000, 2), hosted('b', 'b1', 1000, 3), hosted('b', 'b2', 1000, 4)];
  t.deepEqual(reclaim(all, { cpu: 3000, memory: 0 }, new Map([['a', 3], ['b', 1]])).map((v) => v.component), ['b2']);
});

test('nothing is reclaimed while what is hosted fits', (t) => {
  t.deepEqual(reclaim([hosted('a', 'a1', 1000, 1)], { cpu: 1000, memory: 0 }, new Map()), []);
});

// Pods (the benchmark stalled at a node's 110 pods while cpu and memory were offered).
function apiNode(name: string, allocatable: Record<string, string>, ready = true): V1Node {
  return {
    apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: {},
    status: { capacity: allocatable, allocatable, conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

function apiPod(name: string, node: string | undefined, phase: string, extra: { cpu?: string; hostedFor?: string } = {}): V1Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: name, ...(extra.hostedFor === undefined ? {} : { [HOSTED_FOR_LABEL]: extra.hostedFor }) } },
    spec: { ...(node === undefined ? {} : { nodeName: node }), containers: [{ name: 'c', image: 'example.com/c:1', ...(extra.cpu === undefined ? {} : { resources: { requests: { cpu: extra.cpu } } }) }] },
    status: { phase },
  };
}

test('free pods are each ready node\'s allocatable pods minus the unfinished pods bound to it', (t) => {
  const nodes = [apiNode('n1', { cpu: '4', memory: '8Gi', pods: '3' }), apiNode('n2', { cpu: '2', memory: '4Gi', pods: '110' }), apiNode('down', { cpu: '8', memory: '8Gi', pods: '110' }, false)];
  const pods = [
    apiPod('a', 'n1', 'Running'), apiPod('b', 'n1', 'Pending'), apiPod('c', 'n1', 'Unknown', { cpu: '500m' }),
    apiPod('done', 'n1', 'Succeeded'), apiPod('crashed', 'n1', 'Failed'),
    apiPod('hosted', 'n2', 'Running', { hostedFor: 'edge-2' }),
    apiPod('elsewhere', 'down', 'Running'), apiPod('unbound', undefined, 'Pending'),
    apiPod('d', 'n2', 'Running'),
  ];
  const free = clusterFree(nodes.map(nodeInput), pods.map(podInput));
  t.deepEqual(free, { cpu: 5500, memory: 12288, pods: 109 }, 'n1 full (3 of 3), n2 has 109 left; finished, hosted, unbound pods and the not-ready node do not count');
  t.deepEqual(offeredCapacity(free, 50), { cpu: 2750, memory: 6144, pods: 54 }, 'whole pods: 54.5 floored');
});

test('a node filled with pods adds none, and never takes pods from another node', (t) => {
  const nodes = [apiNode('small', { cpu: '4', memory: '8Gi', pods: '3' }), apiNode('other', { cpu: '1', memory: '1Gi', pods: '2' })];
  const four = ['p1', 'p2', 'p3', 'p4'].map((p) => apiPod(p, 'small', 'Running'));
  t.deepEqual(clusterFree(nodes.map(nodeInput), four.map(podInput)).pods, 2, 'small is over-full (4 of 3): 0 there, 2 on other');
  t.deepEqual(clusterFree(nodes.map(nodeInput), four.slice(0, 2).map(podInput)).pods, 3);
});

test('nodes that report no allocatable pods leave the cluster not limited by pods', (t) => {
  const free = clusterFree([apiNode('n1', { cpu: '1', memory: '1Gi' }), apiNode('n2', { cpu: '1', memory: '1Gi', pods: '5' })].map(nodeInput), []);
  t.deepEqual(free, { cpu: 2000, memory: 2048 });
  t.deepEqual(nodeInput(apiNode('n2', { cpu: '1', memory: '1Gi', pods: '5' })).allocatable, { cpu: 1000, memory: 1024, pods: 5 });
});

test('a malformed allocatable pod count is refused naming the node', (t) => {
  const err = t.throws(() => nodeInput(apiNode('n7', { cpu: '1', memory: '1Gi', pods: 'lots' })));
  t.true(isEdgeshifuError(err, 'invalid'));
  t.regex(err.message, /node n7 allocatable pods: "lots" is not a Kubernetes quantity/);
});

function hostedPods(origin: string, component: string, pods: number, acceptedAt: number): HostedComponent {
  return { origin, app: `${origin}-app`, component, resources: { cpu: 100, memory: 64, pods }, acceptedAt };
}

test('when the node\'s own pods come back, hosted components above the pods offered are reclaimed, the origin most above its share first', (t) => {
  const all = [hostedPods('a', 'a1', 1, 1), hostedPods('a', 'a2', 1, 2), hostedPods('a', 'a3', 1, 3), hostedPods('b', 'b1', 1, 4)];
  t.deepEqual(reclaim(all, { cpu: 8000, memory: 8192, pods: 4 }, new Map()), [], 'everything fits');
  t.deepEqual(reclaim(all, { cpu: 8000, memory: 8192, pods: 2 }, new Map()).map((v) => v.component), ['a3', 'a2'], 'cpu and memory are plenty; pods are not');
  t.deepEqual(reclaim(all, { cpu: 8000, memory: 8192 }, new Map()), [], 'a slice without pods reclaims none for pods');
});
