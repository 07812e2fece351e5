// Shared mode on a real control plane with KWOK nodes: the controller, with only its own
// ServiceAccount's token, keeps one host Deployment per node with shared devices and one Service
// per device; the host follows a node's devices as they come, move and go; a device's annotation
// picks its mode either way.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import type { V1Service } from '@kubernetes/client-node';
import { endpointFromKubeconfig, KubeClient } from '../../shared/kube/client.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { ANNOTATION_MODE } from '../../shared/node-host.ts';
import type { Kube } from '../support/cluster.ts';
import { startController } from '../support/controller.ts';
import { kubectl } from '../support/kubectl.ts';
import { waitFor } from '../support/wait.ts';
import { createDevice, deploymentOf, edgeCluster, readDevice, thermometer, waitForCondition } from './fixtures.ts';

const MANIFESTS = fileURLToPath(new URL('../../manifests/controller/', import.meta.url));

async function controllerClient(kube: Kube): Promise<KubeClient> {
  for (const file of ['namespaces.yaml', 'rbac.yaml']) {
    const result = await kubectl(kube.kubeconfigPath, ['apply', '-f', `${MANIFESTS}${file}`]);
    if (result.code !== 0) throw new Error(result.stderr);
  }
  const token = await kube.core.createNamespacedServiceAccountToken({ namespace: 'edgeshifu-system', name: 'edgeshifu-controller', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const admin = endpointFromKubeconfig(kube.kubeconfigPath);
  return new KubeClient({ server: admin.server, ca: admin.ca, token: token.status?.token });
}

async function hostDeployments(kube: Kube): Promise<Record<string, string>> {
  const list = await kube.apps.listNamespacedDeployment({ namespace: 'deviceshifu' });
  const pinned = (d: (typeof list.items)[number]): string => d.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0] ?? '?';
  return Object.fromEntries(list.items.map((d) => [d.metadata?.name ?? '', pinned(d)]));
}

async function serviceOf(kube: Kube, name: string): Promise<V1Service | undefined> {
  return kube.core.readNamespacedService({ namespace: 'deviceshifu', name }).catch(() => undefined);
}

/** Names of the objects `kubectl get` lists, or of the one it reads. */
async function names(kube: Kube, args: string[]): Promise<string[]> {
  const result = await kubectl(kube.kubeconfigPath, ['get', ...args, '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}']);
  if (result.code !== 0) throw new Error(result.stderr);
  // the controller's own Role in the namespace (manifests/controller/rbac.yaml) is not a device's
  return result.stdout.split('\n').filter((n) => n !== '' && n !== 'edgeshifu-controller');
}

const hostOf = (s: V1Service | undefined): string | undefined => s?.spec?.selector?.['shifu.edgenesis.io/deviceshifu-host'];
const portOf = (s: V1Service | undefined): unknown => s?.spec?.ports?.[0]?.targetPort;

async function onHost(kube: Kube, name: string, node: string): Promise<V1Service> {
  return waitFor(`${name}'s Service on the host of ${node}`, async () => { const s = await serviceOf(kube, name); return hostOf(s) === node ? s : undefined; });
}

test.serial('one host per node with shared devices, a Service each; devices move hosts with their node, and the last one out takes the host', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('a', { memory: '8Gi' });
  await kube.addNode('b', { memory: '2Gi' });
  const client = await controllerClient(kube);
  t.teardown(() => { client.close(); });
  await startController(t, kube, ['--device-shifu-mode', 'shared'], client);
  await createDevice(kube, thermometer('d1'));
  await createDevice(kube, thermometer('d2'));
  await createDevice(kube, thermometer('d3', { attachedNode: 'b', connection: 'USB' }));
  for (const d of ['d1', 'd2', 'd3']) await waitForCondition(kube, d, 'BundleReady', { status: 'True' });

  t.deepEqual(await hostDeployments(kube), { 'deviceshifu-host-a': 'a', 'deviceshifu-host-b': 'b' }, 'one host per node, no Deployment per device');
  const [s1, s2, s3] = await Promise.all(['d1', 'd2', 'd3'].map((d) => serviceOf(kube, d)));
  t.deepEqual([hostOf(s1), hostOf(s2), hostOf(s3)], ['a', 'a', 'b']);
  t.not(portOf(s1), portOf(s2), 'two devices on one host, two ports');
  t.regex((await readDevice(kube, 'd1')).status?.conditions?.find((c) => c.type === 'Scheduled')?.message ?? '', /shared host/);

  // a taken by cordon: d1 and d2 move to b's host, a's host goes; d3 keeps its port
  const d3Port = portOf(s3);
  await kube.core.patchNode({ name: 'a', body: { spec: { unschedulable: true } } }, (await import('../../shared/kube/patch.ts')).MERGE_PATCH);
  const [m1, m2] = [await onHost(kube, 'd1', 'b'), await onHost(kube, 'd2', 'b')];
  t.is(new Set([portOf(m1), portOf(m2), d3Port]).size, 3, 'three devices on b, three ports');
  t.is(portOf(await serviceOf(kube, 'd3')), d3Port, 'd3 was not touched');
  await waitFor('a\'s host gone', async () => (Object.keys(await hostDeployments(kube)).includes('deviceshifu-host-a') ? undefined : true));
  t.deepEqual(await hostDeployments(kube), { 'deviceshifu-host-b': 'b' });
  const subjects = await kubectl(kube.kubeconfigPath, ['get', 'rolebinding', '-n', 'devices', 'deviceshifu-d1', '-o', 'jsonpath={.subjects[*].name}']);
  t.is(subjects.stdout, 'deviceshifu-host-b', 'd1\'s rights went with it to b\'s host');

  // the last device out takes the host with it; the finalizers leave nothing behind
  for (const d of ['d1', 'd2', 'd3']) await kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices', name: d });
  await waitFor('every host and Service gone', async () => {
    const hosts = Object.keys(await hostDeployments(kube)).length;
    const services = (await kube.core.listNamespacedService({ namespace: 'deviceshifu' })).items.length;
    return hosts === 0 && services === 0 ? true : undefined;
  });
  t.deepEqual(await names(kube, ['roles,rolebindings', '-n', 'deviceshifu']), [], 'no host Role and no ConfigMap Role left');
  t.deepEqual(await names(kube, ['roles,rolebindings', '-n', 'devices']), [], 'no device Role left');
  const accounts = await kube.core.listNamespacedServiceAccount({ namespace: 'deviceshifu' });
  t.deepEqual(accounts.items.map((a) => a.metadata?.name).filter((n) => n !== 'default'), []);
});

test.serial('a device\'s annotation picks its mode over the cluster\'s, and switching leaves nothing of the other mode', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1');
  await startController(t, kube);
  const device = thermometer('switcher') as { metadata: Record<string, unknown> };
  await createDevice(kube, { ...device, metadata: { ...device.metadata, annotations: { [ANNOTATION_MODE]: 'shared' } } });
  await waitForCondition(kube, 'switcher', 'BundleReady', { status: 'True' });
  t.deepEqual(await hostDeployments(kube), { 'deviceshifu-host-edge-1': 'edge-1' }, 'shared in a dedicated cluster');
  const sharedPort = portOf(await onHost(kube, 'switcher', 'edge-1'));

  const annotate = async (mode: string): Promise<void> => {
    await kube.custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices', name: 'switcher', body: { metadata: { annotations: { [ANNOTATION_MODE]: mode } } } }, (await import('../../shared/kube/patch.ts')).MERGE_PATCH);
  };
  await annotate('dedicated');
  await waitFor('a dedicated deviceShifu and no host', async () => (JSON.stringify(await hostDeployments(kube)) === JSON.stringify({ 'switcher-deployment': 'edge-1' }) ? true : undefined));
  const dedicated = await serviceOf(kube, 'switcher');
  t.is(hostOf(dedicated), undefined);
  t.is(portOf(dedicated), 8080);
  t.deepEqual(await names(kube, ['roles', '-n', 'deviceshifu']), [], 'the host\'s ConfigMap Role is gone');

  await annotate('shared');
  await waitFor('the host back and no dedicated Deployment', async () => (JSON.stringify(await hostDeployments(kube)) === JSON.stringify({ 'deviceshifu-host-edge-1': 'edge-1' }) ? true : undefined));
  t.is(await deploymentOf(kube, 'switcher'), undefined);
  t.is(portOf(await onHost(kube, 'switcher', 'edge-1')), sharedPort, 'the first free port again');
});
