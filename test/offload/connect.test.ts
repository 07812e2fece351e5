// Launch and connect across real control planes: a remote component is reached from the
// offloading cluster on every port it declares, and a remote component reaches what it depends
// on in the offloading cluster under the name it expects. KWOK runs no process and nothing
// answers at pod or node addresses, so these tests assert the objects and addresses that a real
// cluster routes (Services, EndpointSlices, node ports), not traffic.
import test from 'ava';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { DiscoveryV1Api } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import type { Kube } from '../support/cluster.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import type { OffloadRequest } from '../../controller/offload/origin-reconciler.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { APPS, createApp, listCustom, publicAddress, readApp, recordHostPhases, recordPhases, startFederation } from './support.ts';

function component(name: string, size: { cpu: string; memory: string }, ports: Array<{ name: string; containerPort: number }>, deps: string[] = []): Record<string, unknown> {
  return {
    name,
    ...(deps.length === 0 ? {} : { bootDependencies: deps }),
    // no `ports` here: the containers' ports are the component's
    template: { spec: { replicas: 1, template: { spec: { containers: [{ name, image: `example.com/${name}:1`, ports, resources: { requests: size } }] } } } },
  };
}

function app(name: string, components: Array<Record<string, unknown>>): Record<string, unknown> {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'DroneFederatedDeployment', metadata: { name, namespace: APPS }, spec: { components } };
}

async function sliceOf(kube: Kube, namespace: string, service: string): Promise<V1EndpointSlice | undefined> {
  const discovery = kube.kc.makeApiClient(DiscoveryV1Api);
  return (await discovery.listNamespacedEndpointSlice({ namespace, labelSelector: `kubernetes.io/service-name=${service}` })).items[0];
}

async function serviceOf(kube: Kube, namespace: string, name: string): Promise<V1Service | undefined> {
  return kube.core.readNamespacedService({ namespace, name }).catch(() => undefined);
}

const BIG = { cpu: '1', memory: '1Gi' };

async function deleteApp(kube: Kube, name: string): Promise<void> {
  await kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: APPS, plural: 'dronefederateddeployments', name });
  await waitFor(`${name} to be gone`, async () => ((await readApp(kube, name)) === undefined ? true : undefined), { timeoutMs: 60_000 });
}

test.serial('a remote component with two ports is reached from the offloading cluster on both, by name', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '4', memory: '8Gi' }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  const phases = recordPhases(a, 'web');
  await createApp(a.kube, app('web', [component('web', BIG, [{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090 }])]));
  const running = await waitFor('web to be RUNNING', async () => {
    const d = await readApp(a.kube, 'web');
    return d?.status?.phase === 'RUNNING' ? d : undefined;
  }, { timeoutMs: 180_000 });
  // read from the API: a's cache (where the phases are recorded) may deliver the write a moment later
  await waitFor('a\'s cache to show RUNNING', () => (phases.at(-1) === 'RUNNING' ? true : undefined), { timeoutMs: 10_000, intervalMs: 10 });
  t.deepEqual(phases, ['SCHEDULING', 'PENDING', 'RUNNING']);
  const web = running.status?.components?.[0];
  t.is(web?.cluster, 'b');

  // b exposes both ports on node ports, and says so
  const [hosted] = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
  const exposed = (await serviceOf(b.kube, 'drone-a', hosted?.metadata.name ?? ''))?.spec?.ports ?? [];
  t.deepEqual(exposed.map((p) => [p.name, p.port]), [['http', 8080], ['metrics', 9090]]);
  const nodePorts = exposed.map((p) => p.nodePort ?? 0);
  t.true(nodePorts.every((p) => p > 0));
  const reported = [{ name: 'http', port: 8080, at: nodePorts[0], protocol: 'TCP' }, { name: 'metrics', port: 9090, at: nodePorts[1], protocol: 'TCP' }];
  t.deepEqual(hosted?.status?.ports, reported, 'the HostRequest keeps every port');
  const [request] = await listCustom<OffloadRequest>(a.kube, 'offloadrequests', APPS);
  t.deepEqual(request?.status?.ports, reported, 'the host-status carried every port to the origin');
  t.deepEqual(web?.ports, reported);
  t.is(web?.endpoint, `${publicAddress(1)}:${String(nodePorts[0])}`, 'the endpoint stays the first port, as older agents read it');

  // a: Service web without selector on both ports, each to its node port on b by name
  const service = await serviceOf(a.kube, APPS, 'web');
  t.is(service?.spec?.selector, undefined);
  t.deepEqual(service?.spec?.ports?.map((p) => [p.name, p.port, p.targetPort, p.protocol]), [['http', 8080, nodePorts[0], 'TCP'], ['metrics', 9090, nodePorts[1], 'TCP']]);
  const slice = await sliceOf(a.kube, APPS, 'web');
  t.deepEqual(slice?.endpoints?.map((e) => e.addresses), [[publicAddress(1)]]);
  t.deepEqual(slice?.ports?.map((p) => [p.name, p.port, p.protocol]), [['http', nodePorts[0], 'TCP'], ['metrics', nodePorts[1], 'TCP']]);

  await deleteApp(a.kube, 'web');
  t.is(phases.at(-1), 'DONE');
  await waitFor('b to drop web', async () => ((await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a')).length === 0 ? true : undefined), { timeoutMs: 30_000 });
  await waitFor('a\'s Service web to go', async () => ((await serviceOf(a.kube, APPS, 'web')) === undefined ? true : undefined), { timeoutMs: 60_000 });
});

test.serial('a remote component reaches its local dependency under the dependency\'s name, at the origin\'s node ports, and starts after it', async (t) => {
  // a has memory but little cpu, b the other way round: api (cpu) can only run on b, db (memory) only on a
  // both controllers on their ServiceAccount tokens: the RBAC in manifests/ covers the way back
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '8Gi' }, { id: 'b', cpu: '4', memory: '1Gi' }], { asServiceAccount: true });
  if (a === undefined || b === undefined) throw new Error('no federation');
  const phases = recordPhases(a, 'shop');
  const apiPhases = recordHostPhases(b, 'api');
  await createApp(a.kube, app('shop', [
    component('api', { cpu: '1', memory: '256Mi' }, [{ name: 'http', containerPort: 8080 }], ['db']),
    component('db', { cpu: '100m', memory: '2Gi' }, [{ name: 'pg', containerPort: 5432 }, { name: 'metrics', containerPort: 9187 }]),
  ]));
  const running = await waitFor('shop to be RUNNING', async () => {
    const d = await readApp(a.kube, 'shop');
    return d?.status?.phase === 'RUNNING' ? d : undefined;
  }, { timeoutMs: 180_000 });
  // read from the API: a's cache (where the phases are recorded) may deliver the write a moment later
  await waitFor('a\'s cache to show RUNNING', () => (phases.at(-1) === 'RUNNING' ? true : undefined), { timeoutMs: 10_000, intervalMs: 10 });
  t.deepEqual(phases, ['SCHEDULING', 'PENDING', 'RUNNING']);
  t.deepEqual(running.status?.components?.map((c) => [c.name, c.cluster, c.phase]), [['api', 'b', 'LAUNCHED'], ['db', 'a', 'LAUNCHED']]);
  t.deepEqual(apiPhases.slice(0, 2), ['ACCEPTED', 'SCHEDULED'], 'api waited for db before starting');
  t.is(apiPhases.at(-1), 'LAUNCHED');

  // a: db's own Service is a NodePort one, at a's public address
  const local = await serviceOf(a.kube, APPS, 'db');
  t.is(local?.spec?.type, 'NodePort');
  t.deepEqual(local?.spec?.selector, { 'drone.edgeshifu.io/deployment': 'shop', 'drone.edgeshifu.io/component': 'db' }, 'callers in a still reach db\'s pods directly');
  const nodePorts = (local?.spec?.ports ?? []).map((p) => p.nodePort ?? 0);
  t.deepEqual(local?.spec?.ports?.map((p) => [p.name, p.port]), [['pg', 5432], ['metrics', 9187]]);
  const db = running.status?.components?.find((c) => c.name === 'db');
  t.is(db?.endpoint, `${publicAddress(0)}:${String(nodePorts[0])}`, 'announced where b reaches it, not as db.apps.svc');

  // b: a Service db in api's namespace, to a's node ports by name, made before api's Deployment
  const api = (await b.kube.apps.listNamespacedDeployment({ namespace: 'drone-a' })).items.find((d) => d.metadata?.labels?.['drone.edgeshifu.io/component'] === 'api');
  const dep = await serviceOf(b.kube, 'drone-a', 'db');
  t.is(dep?.spec?.selector, undefined);
  t.deepEqual(dep?.spec?.ports?.map((p) => [p.name, p.port, p.targetPort]), [['pg', 5432, nodePorts[0]], ['metrics', 9187, nodePorts[1]]]);
  t.true(new Date(dep?.metadata?.creationTimestamp ?? 0).getTime() <= new Date(api?.metadata?.creationTimestamp ?? 0).getTime(), 'db\'s Service was there when api started');
  t.deepEqual(dep?.metadata?.ownerReferences?.map((o) => [o.kind, o.controller]), [['HostRequest', false]], 'goes with the HostRequests that need it');
  const slice = await sliceOf(b.kube, 'drone-a', 'db');
  t.deepEqual(slice?.endpoints?.map((e) => e.addresses), [[publicAddress(0)]]);
  t.deepEqual(slice?.ports?.map((p) => [p.name, p.port]), [['pg', nodePorts[0]], ['metrics', nodePorts[1]]]);
  const env = Object.fromEntries((api?.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
  t.is(`${env.DB_SERVICE_HOST ?? ''}:${env.DB_SERVICE_PORT ?? ''}`, db?.endpoint ?? 'none');
  const [hosted] = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
  t.deepEqual(hosted?.spec.dependencyPorts?.db?.map((p) => p.at), nodePorts, 'the lease carried every port of db');

  // deleted: both sides clean up, db's Service on b with its HostRequest
  await deleteApp(a.kube, 'shop');
  t.is(phases.at(-1), 'DONE');
  await waitFor('b\'s Service db to go', async () => ((await serviceOf(b.kube, 'drone-a', 'db')) === undefined ? true : undefined), { timeoutMs: 60_000 });
  await waitFor('b\'s EndpointSlice for db to go', async () => ((await sliceOf(b.kube, 'drone-a', 'db')) === undefined ? true : undefined), { timeoutMs: 60_000 });
  await waitFor('a\'s Service db to go', async () => ((await serviceOf(a.kube, APPS, 'db')) === undefined ? true : undefined), { timeoutMs: 60_000 });
  t.is(b.controller.controller.offloader?.federation.agent.hosted().length, 0);
});
