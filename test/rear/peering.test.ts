// REAR's peering on two real control planes (consumer and provider) and aedes on 127.0.0.1: the
// virtual node per contract, pods carried to the provider and their status, deletion both ways, a
// refusal on the provider shown on the consumer's pod, a pod under no live contract refused, a
// contract's expiry draining and removing the node, and a consumer restart converging. Both
// sides run on the controller's ServiceAccount token with only the REAR and peering roles.
import anyTest, { type TestFn } from 'ava';
import type { V1EndpointSlice, V1Node, V1Pod } from '@kubernetes/client-node';
import type { EdgeshifuError } from '../../shared/errors.ts';
import { waitFor } from '../support/wait.ts';
import { freshNamespace, uniqueName } from '../support/cluster.ts';
import { buy, carriedDeployment, CONTRACTS, createContract, IMAGES, peeringWorld, type PeeringWorld } from './peering-support.ts';

const test = anyTest as TestFn<{ world: PeeringWorld }>;

test.before(async (t) => {
  t.context.world = await peeringWorld({ resendMs: 2_000, endGraceMs: 3_000 });
});
test.after.always(async (t) => { await t.context.world.stop(); });

const LONG = { timeoutMs: 90_000 };

async function nodeNamed(w: PeeringWorld, name: string): Promise<V1Node | undefined> {
  return w.consumer.core.readNode({ name }).catch(() => undefined);
}

async function allocation(w: PeeringWorld, name: string): Promise<{ spec: Record<string, unknown>; status?: { phase?: string; message?: string } } | undefined> {
  return await w.consumer.custom.getNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: CONTRACTS, plural: 'allocations', name }).catch(() => undefined) as never;
}

async function providerPods(w: PeeringWorld): Promise<V1Pod[]> {
  return (await w.provider.core.listNamespacedPod({ namespace: 'rear-cons' }).catch(() => ({ items: [] as V1Pod[] }))).items;
}

async function podsIn(w: PeeringWorld, namespace: string): Promise<V1Pod[]> {
  return (await w.consumer.core.listNamespacedPod({ namespace })).items;
}

const ready = (n: V1Node | undefined): boolean => n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

test.serial('a contract gets a Ready virtual node with its capacity, taint and labels; a Deployment runs on it in the provider, and status and deletion are reflected both ways', async (t) => {
  const w = t.context.world;
  const signed = await buy(w.market, { cpu: 1000, memory: 1024 });
  const id = signed.contract.contractId;
  await createContract(w.consumer, signed, 'c-main');
  const nodeName = `rear-${id}`;
  const node = await waitFor('the virtual node to be Ready', async () => { const n = await nodeNamed(w, nodeName); return ready(n) ? n : undefined; }, LONG);
  t.like(node.status?.capacity, { cpu: '1', memory: '1Gi', pods: '4' });
  t.deepEqual(node.status?.allocatable, node.status?.capacity);
  t.deepEqual(node.spec?.taints?.filter((x) => x.key.startsWith('rear.')).map((x) => ({ key: x.key, value: x.value, effect: x.effect })), [{ key: 'rear.edgeshifu.io/contract', value: id, effect: 'NoSchedule' }]);
  t.like(node.metadata?.labels, { type: 'virtual-node', 'kubernetes.io/role': 'agent', 'rear.edgeshifu.io/provider': 'prov', 'rear.edgeshifu.io/domain': 'domain-b', 'rear.edgeshifu.io/contract': id });
  t.is(node.metadata?.annotations?.['kwok.x-k8s.io/node'], undefined, 'not a node the KWOK controller manages');
  // the Lease is written just after the node's status: waited for, not read at once
  const leases = w.consumer.kc.makeApiClient((await import('@kubernetes/client-node')).CoordinationV1Api);
  const lease = await waitFor('the node\'s Lease', () => leases.readNamespacedLease({ name: nodeName, namespace: 'kube-node-lease' }).catch(() => undefined));
  t.is(lease.spec?.holderIdentity, nodeName);
  const active = await waitFor('the Allocation to be Active', async () => { const a = await allocation(w, 'c-main'); return a?.status?.phase === 'Active' ? a : undefined; }, LONG);
  t.like(active.spec, { contract: id, type: 'VirtualNode', nodeName });

  const namespace = await freshNamespace(t, w.consumer, 'peer');
  await w.consumer.apps.createNamespacedDeployment({ namespace, body: carriedDeployment('web', namespace, { node: nodeName, contractId: id }) });
  const running = await waitFor('the consumer pod Running on the virtual node', async () => {
    const [pod] = await podsIn(w, namespace);
    return pod?.status?.phase === 'Running' && pod.spec?.nodeName === nodeName ? pod : undefined;
  }, LONG);
  const [carried, ...others] = await providerPods(w);
  t.is(others.length, 0, 'one pod on the provider');
  t.is(carried?.status?.phase, 'Running');
  t.is(running.status?.podIP, undefined, 'the provider pod\'s IP is not shown on the consumer (its Services reach it by NodePort)');
  t.true(running.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  t.is(running.status?.containerStatuses?.[0]?.name, 'web');
  t.is(carried?.spec?.automountServiceAccountToken, false, 'no token on the provider');
  t.false(carried?.spec?.volumes?.some((v) => v.projected !== undefined) ?? false);
  t.like(carried?.spec?.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  const deployment = await waitFor('the Deployment available', async () => { const d = await w.consumer.apps.readNamespacedDeployment({ name: 'web', namespace }); return d.status?.availableReplicas === 1 ? d : undefined; }, LONG);
  t.is(deployment.status?.readyReplicas, 1);
  const quota = await w.provider.core.readNamespacedResourceQuota({ name: 'edgeshifu-hosted', namespace: 'rear-cons' });
  t.like(quota.spec?.hard, { 'requests.cpu': '1', 'requests.memory': '1Gi', pods: '4' });

  // lost on the provider: shown Failed, and the ReplicaSet makes another that runs
  await w.provider.core.deleteNamespacedPod({ name: carried?.metadata?.name ?? '', namespace: 'rear-cons', gracePeriodSeconds: 0 });
  const lost = await waitFor('the consumer pod Failed as lost', async () => {
    const pod = (await podsIn(w, namespace)).find((p) => p.metadata?.uid === running.metadata?.uid);
    return pod?.status?.phase === 'Failed' ? pod : undefined;
  }, LONG);
  t.is(lost.status?.reason, 'ProviderLost');
  await waitFor('a new pod Running on the virtual node and on the provider', async () => {
    const pods = (await podsIn(w, namespace)).filter((p) => p.status?.phase === 'Running');
    const there = (await providerPods(w)).filter((p) => p.status?.phase === 'Running');
    return pods.length === 1 && there.length === 1 ? true : undefined;
  }, LONG);

  // deleted on the consumer: deleted on the provider, then gone here
  await w.consumer.apps.deleteNamespacedDeployment({ name: 'web', namespace });
  await waitFor('the provider pods gone', async () => ((await providerPods(w)).length === 0 ? true : undefined), LONG);
  await waitFor('the consumer pods gone', async () => ((await podsIn(w, namespace)).filter((p) => p.status?.phase !== 'Failed').length === 0 ? true : undefined), LONG);
});

test.serial('a privileged pod is refused by the provider with the reason on the consumer\'s pod; under a withdrawn contract a running pod is ended and a new one refused', async (t) => {
  const w = t.context.world;
  const signed = await buy(w.market, { cpu: 500, memory: 512 });
  const id = signed.contract.contractId;
  await createContract(w.consumer, signed, 'c-refuse');
  const nodeName = `rear-${id}`;
  await waitFor('the virtual node Ready', async () => (ready(await nodeNamed(w, nodeName)) ? true : undefined), LONG);
  const namespace = await freshNamespace(t, w.consumer, 'peer');
  const pod = (name: string, securityContext: Record<string, unknown> = {}): V1Pod => ({
    metadata: { name, namespace },
    spec: {
      nodeName, tolerations: [{ key: 'rear.edgeshifu.io/contract', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'c', image: `${IMAGES}busybox:1`, securityContext, resources: { requests: { cpu: '50m', memory: '16Mi' } } }],
    },
  });
  await w.consumer.core.createNamespacedPod({ namespace, body: pod('root', { privileged: true }) });
  const refused = await waitFor('the privileged pod Failed with the provider\'s reason', async () => {
    const p = await w.consumer.core.readNamespacedPod({ name: 'root', namespace });
    return p.status?.phase === 'Failed' ? p : undefined;
  }, LONG);
  t.is(refused.status?.reason, 'ProviderRefused');
  t.regex(refused.status?.message ?? '', /prov \(Pod Security restricted\) refuses .*root: spec\.template\.spec\.containers\[0\]\.securityContext\.privileged/);
  t.false((await providerPods(w)).some((p) => p.metadata?.annotations?.['rear.edgeshifu.io/carried-from']?.endsWith('/root') === true), 'nothing made on the provider');

  await w.consumer.core.createNamespacedPod({ namespace, body: pod('ok') });
  await waitFor('a plain pod Running under the contract', async () => ((await w.consumer.core.readNamespacedPod({ name: 'ok', namespace })).status?.phase === 'Running' ? true : undefined), LONG);

  // the provider withdraws the contract; the consumer does not know yet: its running pod is ended there and shown so, its next pod is refused
  await w.market.withdraw(id);
  const ended = await waitFor('the running pod Failed once the provider ended it', async () => {
    const p = await w.consumer.core.readNamespacedPod({ name: 'ok', namespace });
    return p.status?.phase === 'Failed' ? p : undefined;
  }, LONG);
  t.is(ended.status?.reason, 'ProviderLost');
  t.regex(ended.status?.message ?? '', new RegExp(`contract ${id} is no longer live`));
  await w.consumer.core.createNamespacedPod({ namespace, body: pod('late') });
  const late = await waitFor('the pod under no live contract refused', async () => {
    const p = await w.consumer.core.readNamespacedPod({ name: 'late', namespace });
    return p.status?.phase === 'Failed' ? p : undefined;
  }, LONG);
  t.regex(late.status?.message ?? '', new RegExp(`prov holds no live contract ${id} for cons`));
});

test.serial('on the ServiceAccount tokens alone: a Service reaches a carried pod at the provider\'s node address and NodePort, and a log request reaches the provider\'s API server', async (t) => {
  const w = t.context.world;
  const signed = await buy(w.market, { cpu: 500, memory: 512 });
  const id = signed.contract.contractId;
  await createContract(w.consumer, signed, 'c-svc');
  const nodeName = `rear-${id}`;
  await waitFor('the virtual node to be Ready', async () => (ready(await nodeNamed(w, nodeName)) ? true : undefined), LONG);
  const namespace = await freshNamespace(t, w.consumer, 'svc');
  const web = carriedDeployment('web', namespace, { node: nodeName, contractId: id });
  const container = web.spec?.template.spec?.containers[0];
  if (container !== undefined) container.ports = [{ name: 'http', containerPort: 8080 }];
  await w.consumer.apps.createNamespacedDeployment({ namespace, body: web });
  await w.consumer.core.createNamespacedService({ namespace, body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] } } });
  const [pod] = await waitFor('the pod Running on the virtual node', async () => { const pods = await podsIn(w, namespace); return pods[0]?.status?.phase === 'Running' ? pods : undefined; }, LONG);
  const uid = pod?.metadata?.uid ?? '';
  // the provider's Service of that pod (made with the peering role's services create)
  const exposed = await waitFor('the carried pod\'s NodePort Service on the provider', async () => {
    const services = (await w.provider.core.listNamespacedService({ namespace: 'rear-cons', labelSelector: `rear.edgeshifu.io/consumer-uid=${uid}` })).items;
    return services[0]?.spec?.ports?.[0]?.nodePort === undefined ? undefined : services[0];
  }, LONG);
  const policy = await w.provider.kc.makeApiClient((await import('@kubernetes/client-node')).NetworkingV1Api).readNamespacedNetworkPolicy({ namespace: 'rear-cons', name: 'edgeshifu-hosted' });
  t.true(policy.spec?.ingress?.some((r) => r.ports?.some((p) => p.port === 8080 && p.protocol === 'TCP')) === true, 'the namespace\'s network policy lets NodePort traffic reach the declared port');
  const address = (await w.provider.core.readNode({ name: 'prov-node-1' })).status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  // the consumer's slice (made with the peering role's endpointslices rights)
  const slice = await waitFor('the Service\'s EndpointSlice to the carried pod', async () => {
    const list = await w.consumer.custom.listNamespacedCustomObject({ group: 'discovery.k8s.io', version: 'v1', namespace, plural: 'endpointslices', labelSelector: 'endpointslice.kubernetes.io/managed-by=rear.edgeshifu.io' }) as { items: V1EndpointSlice[] };
    return list.items.find((s) => s.endpoints?.[0]?.targetRef?.uid === uid);
  }, LONG);
  t.like(slice, { addressType: 'IPv4', ports: [{ name: 'web', port: exposed.spec?.ports?.[0]?.nodePort, protocol: 'TCP' }] });
  t.deepEqual(slice.endpoints?.[0]?.addresses, [address ?? 'no InternalIP']);
  // the provider reads pods/log with the peering role's right: its API server gets as far as the
  // (KWOK) node and finds no log; without the right it would have answered 403
  const error = await w.peering.logs(namespace, pod?.metadata?.name ?? '', { tailLines: 5 }).then(() => undefined, (err: unknown) => err as EdgeshifuError);
  t.is(error?.kind, 'not-found');
  t.regex(error?.message ?? '', /^prov's API server answered 404: the server could not find the requested resource/);
  // another namespace's pod of the same name is not this one: not carried, nothing asked
  await t.throwsAsync(() => w.peering.logs('default', pod?.metadata?.name ?? '', {}), { message: /is not carried to a provider/ });
});

test.serial('contract expiry cordons and drains the virtual node, deletes its pods on both sides and removes it; the Allocation is Released', async (t) => {
  const w = t.context.world;
  const signed = await buy(w.market, { cpu: 500, memory: 512, durationMs: 25_000 });
  const id = signed.contract.contractId;
  await createContract(w.consumer, signed, 'c-expiry');
  const nodeName = `rear-${id}`;
  await waitFor('the virtual node Ready', async () => (ready(await nodeNamed(w, nodeName)) ? true : undefined), LONG);
  const namespace = await freshNamespace(t, w.consumer, 'peer');
  await w.consumer.apps.createNamespacedDeployment({ namespace, body: carriedDeployment('short', namespace, { node: nodeName, contractId: id }) });
  await waitFor('the pod Running before the end', async () => ((await podsIn(w, namespace)).some((p) => p.status?.phase === 'Running') ? true : undefined), LONG);
  t.is((await providerPods(w)).filter((p) => p.metadata?.labels?.['rear.edgeshifu.io/contract'] === id).length, 1);
  const cordoned = await waitFor('the node cordoned at the end', async () => { const n = await nodeNamed(w, nodeName); return n?.spec?.unschedulable === true || n === undefined ? true : undefined; }, LONG);
  t.true(cordoned);
  await waitFor('the virtual node removed', async () => ((await nodeNamed(w, nodeName)) === undefined ? true : undefined), LONG);
  t.is((await providerPods(w)).filter((p) => p.metadata?.labels?.['rear.edgeshifu.io/contract'] === id).length, 0, 'the provider pod went with the contract');
  t.deepEqual((await podsIn(w, namespace)).filter((p) => p.spec?.nodeName === nodeName), [], 'no pod left on the node');
  const released = await waitFor('the Allocation Released', async () => { const a = await allocation(w, 'c-expiry'); return a?.status?.phase === 'Released' ? a : undefined; }, LONG);
  t.regex(released.status?.message ?? '', /expired/);
});

test.serial('the consumer\'s controller restarted mid-way converges: every pod runs once on the provider', async (t) => {
  const w = t.context.world;
  const signed = await buy(w.market, { cpu: 1000, memory: 1024, pods: 8 });
  const id = signed.contract.contractId;
  await createContract(w.consumer, signed, 'c-restart');
  const nodeName = `rear-${id}`;
  await waitFor('the virtual node Ready', async () => (ready(await nodeNamed(w, nodeName)) ? true : undefined), LONG);
  const namespace = await freshNamespace(t, w.consumer, 'peer');
  await w.consumer.apps.createNamespacedDeployment({ namespace, body: carriedDeployment(uniqueName('many'), namespace, { node: nodeName, contractId: id, replicas: 4 }) });
  await waitFor('some pods reached the provider', async () => ((await providerPods(w)).some((p) => p.metadata?.labels?.['rear.edgeshifu.io/contract'] === id) ? true : undefined), LONG);
  await w.restartConsumer();
  const pods = await waitFor('four consumer pods Running', async () => { const p = (await podsIn(w, namespace)).filter((x) => x.status?.phase === 'Running'); return p.length === 4 ? p : undefined; }, LONG);
  const there = (await providerPods(w)).filter((p) => p.metadata?.labels?.['rear.edgeshifu.io/contract'] === id);
  t.is(there.length, 4, 'no duplicate on the provider');
  t.deepEqual(new Set(there.map((p) => p.metadata?.labels?.['rear.edgeshifu.io/consumer-uid'])), new Set(pods.map((p) => p.metadata?.uid)));
});
