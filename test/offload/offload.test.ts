// Offloading across real control planes: a resource-poor cluster's two-component app
// runs on the neighbour with room, is reached under its own Service names, and is cleaned up on
// both sides when deleted. Each test follows the phases, not only the end state.
import test from 'ava';
import type { V1Deployment, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import { kubectl } from '../support/kubectl.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import type { OffloadRequest } from '../../controller/offload/origin-reconciler.ts';
import { APPS, createApp, listCustom, readApp, recordHostPhases, recordPhases, startFederation, twoComponentApp } from './support.ts';

const SA = 'system:serviceaccount:edgeshifu-system:edgeshifu-controller';

test.serial('a resource-poor cluster offloads a two-component app to the neighbour with room, reached as if local, and deleting it cleans up both sides', async (t) => {
  // both controllers run with only their ServiceAccount's token: the RBAC in manifests/ is enough
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '4', memory: '8Gi' }], { asServiceAccount: true });
  if (a === undefined || b === undefined) throw new Error('no federation');
  const canI = async (verb: string, resource: string, namespace: string): Promise<string> => (await kubectl(a.kube.kubeconfigPath, ['auth', 'can-i', verb, resource, `--as=${SA}`, '-n', namespace])).stdout.trim();
  t.is(await canI('get', 'secrets', 'edgeshifu-system'), 'yes', 'federation credentials, in its own namespace');
  t.is(await canI('get', 'secrets', APPS), 'no', 'and no other Secret');
  t.is(await canI('delete', 'namespaces', 'default'), 'no', 'namespaces are created, never deleted');
  await waitFor('a to hear b\'s slice advert', () => (a.controller.controller.offloader?.federation.agent.providers().includes('b') === true ? true : undefined), { timeoutMs: 30_000 });

  const connected = await waitFor('a\'s Federation b to say Connected', async () => {
    const fed = await a.kube.custom.getClusterCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', plural: 'federations', name: 'b' }) as { status?: { conditions?: Array<{ type: string; status: string; reason: string }> } };
    return fed.status?.conditions?.find((c) => c.type === 'Connected' && c.status === 'True');
  }, { timeoutMs: 30_000 });
  t.is(connected.reason, 'AdvertsHeard', 'kubectl get federations shows the neighbour is heard');

  const phases = recordPhases(a, 'shop');
  const apiPhases = recordHostPhases(b, 'api');
  await createApp(a.kube, twoComponentApp('shop'));

  const running = await waitFor('shop to be RUNNING', async () => {
    const app = await readApp(a.kube, 'shop');
    return app?.status?.phase === 'RUNNING' ? app : undefined;
  }, { timeoutMs: 180_000 });
  t.deepEqual(phases, ['SCHEDULING', 'PENDING', 'RUNNING'], 'the deployment went through DRONE v2\'s phases in order');
  t.deepEqual(running.status?.components?.map((c) => [c.name, c.cluster, c.phase]), [['api', 'b', 'LAUNCHED'], ['db', 'b', 'LAUNCHED']]);
  t.true(running.metadata.finalizers?.includes('drone.edgeshifu.io/release'));

  // hosting side: one HostRequest per component in the namespace for a, each LAUNCHED
  const hosted = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
  t.deepEqual(hosted.map((h) => [h.spec.component, h.status?.phase]).sort(), [['api', 'LAUNCHED'], ['db', 'LAUNCHED']]);
  t.deepEqual(apiPhases.slice(0, 2), ['ACCEPTED', 'SCHEDULED'], 'api waited for its boot dependency before starting');
  t.is(apiPhases.at(-1), 'LAUNCHED');
  const deployments = (await b.kube.apps.listNamespacedDeployment({ namespace: 'drone-a' })).items;
  t.is(deployments.length, 2);
  for (const d of deployments) t.is(d.spec?.template.metadata?.labels?.['drone.edgeshifu.io/hosted-for'], 'a');
  const db = running.status?.components?.find((c) => c.name === 'db');
  const api = deployments.find((d: V1Deployment) => d.metadata?.labels?.['drone.edgeshifu.io/component'] === 'api');
  const env = Object.fromEntries((api?.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
  t.is(`${env.DB_SERVICE_HOST ?? ''}:${env.DB_SERVICE_PORT ?? ''}`, db?.endpoint ?? 'none', 'api finds db where b runs it');

  // offloading side: OffloadRequests LAUNCHED, and Services under the components' names
  const requests = await listCustom<OffloadRequest>(a.kube, 'offloadrequests', APPS);
  t.deepEqual(requests.map((r) => [r.spec.component, r.spec.cluster, r.status?.phase]).sort(), [['api', 'b', 'LAUNCHED'], ['db', 'b', 'LAUNCHED']]);
  const service: V1Service = await a.kube.core.readNamespacedService({ namespace: APPS, name: 'db' });
  t.is(service.spec?.selector, undefined, 'a selector-less Service');
  t.is(service.spec?.ports?.[0]?.port, 5432, 'under the port its callers expect');
  const discovery = a.kube.kc.makeApiClient((await import('@kubernetes/client-node')).DiscoveryV1Api);
  const dbSlice = async (): Promise<V1EndpointSlice | undefined> => (await discovery.listNamespacedEndpointSlice({ namespace: APPS, labelSelector: 'kubernetes.io/service-name=db' })).items[0];
  const slice = await dbSlice();
  t.is(`${slice?.endpoints?.[0]?.addresses[0] ?? ''}:${slice?.ports?.[0]?.port ?? ''}`, db?.endpoint ?? 'none');
  // not rewritten while nothing changes, but put back when deleted by hand
  await discovery.deleteNamespacedEndpointSlice({ namespace: APPS, name: slice?.metadata?.name ?? '' });
  const back = await waitFor('the EndpointSlice to be put back', async () => {
    const now = await dbSlice();
    return now !== undefined && now.metadata?.uid !== slice?.metadata?.uid ? now : undefined;
  }, { timeoutMs: 60_000 });
  t.is(`${back.endpoints?.[0]?.addresses[0] ?? ''}:${back.ports?.[0]?.port ?? ''}`, db?.endpoint ?? 'none');
  t.is(a.controller.controller.offloader?.federation.agent.hosted().length, 0, 'nothing runs on a');

  // a second app with the same component names in the same namespace: refused, shop's Services untouched
  await createApp(a.kube, twoComponentApp('shop-2'));
  const refused = await waitFor('shop-2 to fail', async () => { const d = await readApp(a.kube, 'shop-2'); return d?.status?.phase === 'FAILED' ? d : undefined; }, { timeoutMs: 60_000 });
  t.regex(refused.status?.reason ?? '', /Service apps\/api already exists and belongs to DroneFederatedDeployment shop; .*rename the component/);
  t.is(refused.status?.app, undefined, 'never put to auction');
  t.deepEqual((await a.kube.core.readNamespacedService({ namespace: APPS, name: 'db' })).metadata?.labels?.['drone.edgeshifu.io/deployment'], 'shop');
  await a.kube.custom.deleteNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: APPS, plural: 'dronefederateddeployments', name: 'shop-2' });

  // delete: DEL, DEL_ACK from b, DONE, then gone everywhere
  await a.kube.custom.deleteNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: APPS, plural: 'dronefederateddeployments', name: 'shop' });
  await waitFor('shop to be gone', async () => ((await readApp(a.kube, 'shop')) === undefined ? true : undefined), { timeoutMs: 60_000 });
  t.is(phases.at(-1), 'DONE');
  t.regex(a.controller.logs.join(''), /released by every host/);
  await waitFor('b to drop what it ran for a', async () => ((await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a')).length === 0 ? true : undefined), { timeoutMs: 30_000 });
  await waitFor('b\'s Deployments for a to go', async () => ((await b.kube.apps.listNamespacedDeployment({ namespace: 'drone-a' })).items.length === 0 ? true : undefined), { timeoutMs: 60_000 });
  t.is(b.controller.controller.offloader?.federation.agent.hosted().length, 0, 'b holds no slice for a any more');
});
