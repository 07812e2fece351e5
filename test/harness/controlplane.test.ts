// The test control plane itself: it must behave like a real cluster (Deployments become
// ReplicaSets and scheduled, Running pods on KWOK nodes; owners' deletion collects dependants),
// stay on loopback, survive an API server restart, and run several at once.
import test from 'ava';
import type { V1Deployment } from '@kubernetes/client-node';
import { freshNamespace, ownCluster, sharedKube, uniqueName, type Kube } from '../support/cluster.ts';
import { COMPONENTS } from '../support/controlplane/cluster.ts';
import { isLoopback, listeningAddresses } from '../support/sockets.ts';
import { waitFor } from '../support/wait.ts';

function deployment(name: string, replicas: number, nodeName?: string): V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: 'app', image: 'example.invalid/app:1', resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
          nodeSelector: nodeName === undefined ? undefined : { 'kubernetes.io/hostname': nodeName },
        },
      },
    },
  };
}

async function podsOf(kube: Kube, namespace: string, app: string): Promise<Array<{ name: string; node?: string; phase?: string; owner?: string }>> {
  const pods = await kube.core.listNamespacedPod({ namespace, labelSelector: `app=${app}` });
  return pods.items.map((p) => ({ name: p.metadata?.name ?? '', node: p.spec?.nodeName, phase: p.status?.phase, owner: p.metadata?.ownerReferences?.[0]?.kind }));
}

test('a Deployment becomes a ReplicaSet, then pods scheduled on a KWOK node that KWOK runs', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'deploy');
  const node = uniqueName('kwok');
  await kube.addNode(node, { cpu: '2', memory: '4Gi' });
  t.teardown(() => kube.deleteNode(node));
  await kube.apps.createNamespacedDeployment({ namespace, body: deployment('web', 2, node) });

  const replicaSet = await waitFor('the ReplicaSet', async () => (await kube.apps.listNamespacedReplicaSet({ namespace })).items[0]);
  t.is(replicaSet.metadata?.ownerReferences?.[0]?.kind, 'Deployment');
  const created = await waitFor('two pods', async () => { const p = await podsOf(kube, namespace, 'web'); return p.length === 2 ? p : undefined; });
  t.true(created.every((p) => p.owner === 'ReplicaSet'));
  const scheduled = await waitFor('pods bound to the node', async () => { const p = await podsOf(kube, namespace, 'web'); return p.every((x) => x.node === node) ? p : undefined; });
  t.is(scheduled.length, 2);
  const running = await waitFor('pods Running', async () => { const p = await podsOf(kube, namespace, 'web'); return p.every((x) => x.phase === 'Running') ? p : undefined; }, { timeoutMs: 60_000 });
  t.is(running.length, 2);
  const ready = await waitFor('the Deployment available', async () => {
    const d = await kube.apps.readNamespacedDeployment({ namespace, name: 'web' });
    return d.status?.availableReplicas === 2 ? d : undefined;
  }, { timeoutMs: 60_000 });
  t.is(ready.status?.readyReplicas, 2);
});

test('the scheduler leaves a pod Pending when no node has room for it', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'full');
  const node = uniqueName('tiny');
  await kube.addNode(node, { cpu: '50m', memory: '32Mi', labels: { 'edgeshifu.io/test-pool': node } });
  t.teardown(() => kube.deleteNode(node));
  const spec = deployment('big', 1);
  spec.spec!.template.spec!.nodeSelector = { 'edgeshifu.io/test-pool': node };
  await kube.apps.createNamespacedDeployment({ namespace, body: spec });
  const reason = await waitFor('a FailedScheduling condition', async () => {
    const [pod] = (await kube.core.listNamespacedPod({ namespace, labelSelector: 'app=big' })).items;
    const condition = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
    return condition?.message;
  });
  t.regex(reason, /Insufficient (cpu|memory)/);
});

test('deleting an owner garbage-collects what it owns', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'gc');
  const node = uniqueName('kwok');
  await kube.addNode(node);
  t.teardown(() => kube.deleteNode(node));
  await kube.apps.createNamespacedDeployment({ namespace, body: deployment('gc', 1, node) });
  await waitFor('the pod', async () => (await podsOf(kube, namespace, 'gc')).length === 1 ? true : undefined);
  await kube.apps.deleteNamespacedDeployment({ namespace, name: 'gc', propagationPolicy: 'Background' });
  await waitFor('the ReplicaSet collected', async () => (await kube.apps.listNamespacedReplicaSet({ namespace })).items.length === 0 ? true : undefined, { timeoutMs: 60_000 });
  await waitFor('the pod collected', async () => (await podsOf(kube, namespace, 'gc')).length === 0 ? true : undefined, { timeoutMs: 60_000 });
  t.pass();
});

test('own clusters run side by side, each on loopback only, and survive an API server restart', async (t) => {
  const [a, b] = await Promise.all([ownCluster(t, { name: 'edgeshifu-a' }), ownCluster(t, { name: 'edgeshifu-b' })]);
  t.not(a.cluster.server, b.cluster.server);

  for (const { cluster } of [a, b]) {
    for (const component of COMPONENTS) {
      const pid = cluster.process(component).pid;
      t.truthy(pid, component);
      const addresses = await listeningAddresses(pid!);
      t.true(addresses.length > 0, `${component} listens somewhere`);
      t.deepEqual(addresses.filter((x) => !isLoopback(x)), [], `${component} listens beyond loopback`);
    }
  }

  // independent: what one stores the other does not see
  const name = uniqueName('only-in-a');
  await a.kube.core.createNamespace({ body: { metadata: { name } } });
  await t.throwsAsync(b.kube.core.readNamespace({ name }));

  // the datastore outlives the API server
  await a.cluster.stopComponent('kube-apiserver');
  await t.throwsAsync(a.kube.core.readNamespace({ name }));
  await a.cluster.startComponent('kube-apiserver');
  const back = await waitFor('the namespace after the restart', () => a.kube.core.readNamespace({ name }));
  t.is(back.metadata?.name, name);
});
