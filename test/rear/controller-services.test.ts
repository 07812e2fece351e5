// Services and logs of carried pods through the real controllers on three control planes: a
// Solver on cons-a buys from prov-b; a two-replica Deployment with a declared port runs on the
// virtual node; prov-b exposes each carried pod on a NodePort Service of its own (owned by the
// pod), and cons-a keeps, for the Service selecting them, one EndpointSlice per pod at prov-b's
// public address and that NodePort. A pod deleted takes its slice with it and its replacement gets
// one; a headless Service and a port no container declares are refused with a Warning Event. A
// carried pod's log is asked for through cons-a's route and read by prov-b (KWOK runs no
// container: prov-b's API server's own answer comes back); a pod that is not carried is a 404.
// At the contract's end the slices go with the pods.
import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CoreV1Event, V1EndpointSlice, V1Pod, V1Service } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import { APPS, publicAddress, type Member } from '../offload/support.ts';
import { carriedDeployment } from './peering-support.ts';
import { createSolver, listed, rearFederation, rearOf, solverStatus } from './controllers.ts';

interface AllocationObject { status?: { phase?: string } }

async function slicesOf(m: Member, service: string): Promise<V1EndpointSlice[]> {
  const list = await m.kube.custom.listNamespacedCustomObject({ group: 'discovery.k8s.io', version: 'v1', namespace: APPS, plural: 'endpointslices', labelSelector: `kubernetes.io/service-name=${service},endpointslice.kubernetes.io/managed-by=rear.edgeshifu.io` }) as { items: V1EndpointSlice[] };
  return list.items;
}

async function warnings(m: Member, service: string): Promise<string[]> {
  const list = await m.kube.core.listNamespacedEvent({ namespace: APPS, fieldSelector: `involvedObject.kind=Service,involvedObject.name=${service}` });
  return list.items.filter((e: CoreV1Event) => e.reason === 'CarriedPodUnreachable').map((e) => e.message ?? '');
}

function service(name: string, spec: V1Service['spec']): V1Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: APPS }, spec };
}

test('Services reach carried pods through the provider\'s NodePorts; logs on request come from the provider', async (t) => {
  const { cons, prov } = await rearFederation(t);
  await createSolver(cons.kube, 'web', { resources: { cpu: '2', memory: '2Gi', pods: 4 }, durationSeconds: 75, remoteOnly: true, maxPrice: { amount: '5', currency: 'EUR', period: 'hourly' } });
  const solved = await waitFor('the Solver Solved', async () => { const s = await solverStatus(cons.kube, 'web'); return s?.phase === 'Solved' ? s : undefined; }, { timeoutMs: 120_000 });
  const contractId = solved.contractID ?? '';
  const node = `rear-${contractId}`;

  const web = carriedDeployment('web', APPS, { node, contractId, replicas: 2 });
  const container = web.spec?.template.spec?.containers[0];
  if (container !== undefined) Object.assign(container, { image: 'example.com/web:1', ports: [{ name: 'http', containerPort: 8080 }] });
  await cons.kube.apps.createNamespacedDeployment({ namespace: APPS, body: web });
  await cons.kube.core.createNamespacedService({ namespace: APPS, body: service('web', { selector: { app: 'web' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] }) });
  await cons.kube.core.createNamespacedService({ namespace: APPS, body: service('web-headless', { clusterIP: 'None', selector: { app: 'web' }, ports: [{ port: 8080 }] }) });
  await cons.kube.core.createNamespacedService({ namespace: APPS, body: service('web-admin', { selector: { app: 'web' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }, { name: 'admin', port: 9000 }] }) });

  const consumerPods = async (): Promise<V1Pod[]> => (await cons.kube.core.listNamespacedPod({ namespace: APPS, labelSelector: 'app=web' })).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
  const providerServices = async (): Promise<V1Service[]> => (await prov.kube.core.listNamespacedService({ namespace: 'rear-cons-a' }).catch(() => ({ items: [] as V1Service[] }))).items;
  // prov-b's --drone-public-address (the third member's): where DRONE's neighbours reach its NodePorts too
  const address = publicAddress(2);

  // each carried pod: a NodePort Service on prov-b, and a slice on cons-a at prov-b's address and that node port
  const expected = async (): Promise<Map<string, number> | undefined> => {
    const pods = await consumerPods();
    if (pods.length !== 2 || pods.some((p) => p.status?.phase !== 'Running')) return undefined;
    const provPods = (await prov.kube.core.listNamespacedPod({ namespace: 'rear-cons-a' })).items;
    const byUid = new Map<string, number>();
    for (const s of await providerServices()) {
      const owner = provPods.find((p) => s.metadata?.ownerReferences?.some((o) => o.kind === 'Pod' && o.uid === p.metadata?.uid) === true);
      const uid = owner?.metadata?.labels?.['rear.edgeshifu.io/consumer-uid'];
      const at = s.spec?.ports?.[0]?.nodePort;
      if (s.spec?.type === 'NodePort' && uid !== undefined && at !== undefined) byUid.set(uid, at);
    }
    return pods.every((p) => byUid.has(p.metadata?.uid ?? '')) ? byUid : undefined;
  };
  const sliceMatches = async (name: string, ports: Map<string, number>): Promise<V1EndpointSlice[] | undefined> => {
    const slices = await slicesOf(cons, name);
    const ok = slices.length === ports.size && slices.every((s) => {
      const e = s.endpoints?.[0];
      const uid = e?.targetRef?.uid ?? '';
      return e?.addresses[0] === address && s.ports?.[0]?.port === ports.get(uid) && s.ports?.[0]?.name === 'web' && e.conditions?.ready === true;
    });
    return ok ? slices : undefined;
  };
  const ports = await waitFor('a NodePort Service on prov-b per carried pod', expected, { timeoutMs: 120_000 });
  const slices = await waitFor('one EndpointSlice per carried pod at prov-b\'s address and NodePort', () => sliceMatches('web', ports), { timeoutMs: 60_000 });
  t.is(slices.length, 2);
  t.is(slices[0]?.metadata?.ownerReferences?.[0]?.kind, 'Service');
  t.is((await consumerPods())[0]?.status?.podIP, undefined, 'no provider pod IP: the Service\'s own slice lists no unreachable address');

  // what cannot be carried is said on the Service; what can still is (web-admin keeps its web port)
  const headless = await waitFor('the headless Service refused', async () => (await warnings(cons, 'web-headless')).find((m) => m.includes('headless')));
  t.regex(headless, /give the Service a cluster IP/);
  t.is((await slicesOf(cons, 'web-headless')).length, 0);
  const admin = await waitFor('the undeclared port refused', async () => (await warnings(cons, 'web-admin')).find((m) => m.includes('admin')));
  t.regex(admin, /port admin targets 9000\/TCP, which carried pod apps\/web-.* does not declare/);
  await waitFor('web-admin\'s web port still reached', () => sliceMatches('web-admin', ports));

  // a pod deleted: its slice goes; its replacement gets one
  const [first] = await consumerPods();
  const firstUid = first?.metadata?.uid ?? '';
  await cons.kube.core.deleteNamespacedPod({ namespace: APPS, name: first?.metadata?.name ?? '' });
  const after = await waitFor('the replacement pod carried and exposed', async () => { const m = await expected(); return m !== undefined && !m.has(firstUid) ? m : undefined; }, { timeoutMs: 120_000 });
  await waitFor('the slices follow the pods', () => sliceMatches('web', after), { timeoutMs: 60_000 });
  t.false((await slicesOf(cons, 'web')).some((s) => s.endpoints?.[0]?.targetRef?.uid === firstUid), 'the deleted pod\'s slice is gone');
  await waitFor('the deleted pod\'s provider Service gone with its pod', async () => ((await providerServices()).length === 2 ? true : undefined), { timeoutMs: 60_000 });

  // logs on request, through cons-a's route: prov-b reads pods/log of the carried pod
  const server = createServer((req, res) => {
    void Promise.resolve(rearOf(cons).route(req, res)).then((handled) => { if (!handled) res.writeHead(404).end(); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => { server.close(); });
  const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/rear/v1/namespaces/${APPS}/pods`;
  const [carried] = await consumerPods();
  const reply = await fetch(`${base}/${carried?.metadata?.name ?? ''}/log?tailLines=10&container=web`);
  // KWOK runs no container: prov-b's API server finds no log to give, and says so; that very
  // answer, with its status, comes back over the bus (a 403 here would be a missing pods/log right)
  t.is(reply.status, 404);
  t.regex(await reply.text(), /"kind":"not-found","message":"prov-b's API server answered 404: the server could not find the requested resource \( pods\/log web-[a-z0-9-]+\)"/);
  const missing = await fetch(`${base}/nobody/log`);
  t.is(missing.status, 404);
  t.regex(await missing.text(), /is not carried to a provider/);
  // a followed log starts after its first read: here that read is the same 404, carried back
  const follow = await fetch(`${base}/${carried?.metadata?.name ?? ''}/log?follow=true&container=web`);
  t.is(follow.status, 404);
  t.regex(await follow.text(), /prov-b's API server answered 404/);
  const followPrevious = await fetch(`${base}/${carried?.metadata?.name ?? ''}/log?follow=true&previous=true`);
  t.is(followPrevious.status, 400);
  t.regex(await followPrevious.text(), /follow and previous=true do not go together/);

  // the contract's end: pods drained on both sides, the slices and provider Services gone with them
  await waitFor('the node drained and the Allocation Released', async () => {
    const [a] = await listed<AllocationObject>(cons.kube, 'allocations', APPS);
    return a?.status?.phase === 'Released' ? true : undefined;
  }, { timeoutMs: 150_000 });
  await waitFor('no slice to a carried pod left', async () => ((await slicesOf(cons, 'web')).length + (await slicesOf(cons, 'web-admin')).length === 0 ? true : undefined), { timeoutMs: 60_000 });
  await waitFor('no provider Service left', async () => ((await providerServices()).length === 0 ? true : undefined), { timeoutMs: 60_000 });
  t.pass();
});
