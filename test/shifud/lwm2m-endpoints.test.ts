// LwM2M discovery end to end on the real control plane: a deviceShifu in Kubernetes mode records
// its client's registration in the EdgeDevice's status.lwm2m, and shifud lists the LwM2M clients
// of the deviceShifus on its node in the EdgeNode's status.lwm2mEndpoints; a client that
// deregisters leaves both, and a device placed on another node is never listed.
import test from 'ava';
import { stringify } from 'yaml';
import type { EdgeDevice } from '../../shared/crds/edgedevice.ts';
import { API_VERSION, GROUP, VERSION } from '../../shared/crds/resources.ts';
import { MERGE_PATCH } from '../../shared/kube/patch.ts';
import { KubeClient } from '../../shared/kube/client.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import { runInCluster } from '../../deviceshifu/run.ts';
import { Settings } from '../../deviceshifu/settings.ts';
import { lwm2mEndpointsOn } from '../../shifud/lwm2m-endpoints.ts';
import { startLwm2mDevice } from '../../deviceshifu/mockdevice/lwm2m-device.ts';
import { ConfigDir } from '../deviceshifu/support/configdir.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { installCrds } from '../support/crds.ts';
import { waitFor } from '../support/wait.ts';
import { createDevice, fastConfig, readDevice, readEdgeNode, startShifud } from './harness.ts';

const registration = { endpointName: 'far', address: '10.0.0.9:56830', lifetimeSec: 60, lwm2mVersion: '1.0', registeredAt: '2026-11-26T10:00:00Z', objects: ['/3303/0'] };

test('the registration its deviceShifu records reaches the EdgeNode of the deviceShifu\'s node, and leaves with the client', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud-lwm2m');
  const nodeName = uniqueName('lwm2m-node');
  await createDevice(kube, namespace, 'meter', { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: 'meter-ep' } } });
  await createDevice(kube, namespace, 'elsewhere', { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: 'far' } } });
  // the controller would write where each deviceShifu is placed
  for (const [name, node] of [['meter', nodeName], ['elsewhere', 'another-node']] as const) {
    await kube.custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name, body: { status: { nodeName: node, ...(name === 'elsewhere' ? { lwm2m: registration } : {}) } } }, MERGE_PATCH);
  }
  const config = await ConfigDir.create(t, { instructions: stringify({ instructions: { temperature: { protocolPropertyList: { ObjectId: '/3303/0/5700' } } } }) });
  const lwm2mPort = await freePort();
  const client = KubeClient.fromKubeconfig(kube.kubeconfigPath);
  t.teardown(() => { client.close(); });
  const running = await runInCluster({
    settings: loadConfig(Settings, { argv: ['--port', '0', '--config-dir', config.dir, '--lwm2m-listen-port', String(lwm2mPort)], env: {} }),
    client, pollMs: 200, env: { EDGEDEVICE_NAME: 'meter', EDGEDEVICE_NAMESPACE: namespace }, logger: createLogger('deviceshifu', { level: 'silent' }),
  });
  t.teardown(() => running.stop());
  await startShifud(t, kube, fastConfig(nodeName, { deviceNamespace: namespace }));
  await waitFor('the deviceShifu to serve the LwM2M device', async () => (await fetch(`http://127.0.0.1:${running.address.port}/temperature`)).status === 503 || undefined, { timeoutMs: 30_000 });
  const device = await startLwm2mDevice({ host: '127.0.0.1', port: 0, server: { host: '127.0.0.1', port: lwm2mPort }, endpointName: 'meter-ep', tickMs: 0 });
  t.teardown(() => device.close());
  const recorded = await waitFor('status.lwm2m on the EdgeDevice', async () => (await readDevice(kube, namespace, 'meter')).status?.lwm2m, { timeoutMs: 30_000 });
  t.like(recorded, { endpointName: 'meter-ep', address: `127.0.0.1:${device.port}`, lifetimeSec: 60, lwm2mVersion: '1.0' });
  t.deepEqual(recorded.objects, ['/3/0', '/3303/0', '/3311/0']);
  const listed = await waitFor('the EdgeNode to list the client', async () => (await readEdgeNode(kube, nodeName))?.status?.lwm2mEndpoints, { timeoutMs: 60_000 });
  t.deepEqual(listed.map((e) => [e.namespace, e.name, e.endpointName, e.address]), [[namespace, 'meter', 'meter-ep', `127.0.0.1:${device.port}`]], 'the device on another node is not listed');
  t.is(await device.deregister(), '2.02');
  await waitFor('status.lwm2m to go', async () => (await readDevice(kube, namespace, 'meter')).status?.lwm2m === undefined || undefined, { timeoutMs: 30_000 });
  await waitFor('the EdgeNode to drop the client', async () => (await readEdgeNode(kube, nodeName))?.status?.lwm2mEndpoints === undefined || undefined, { timeoutMs: 60_000 });
  t.pass();
});

test('only registered LwM2M devices placed on the node are listed, in name order', (t) => {
  const device = (name: string, node: string, lwm2m?: typeof registration, protocol: 'LwM2M' | 'HTTP' = 'LwM2M'): EdgeDevice => ({
    apiVersion: API_VERSION, kind: 'EdgeDevice', metadata: { name, namespace: 'devices' },
    spec: { protocol }, status: { nodeName: node, ...(lwm2m === undefined ? {} : { lwm2m }) },
  });
  const seen = lwm2mEndpointsOn('edge-1', [device('b', 'edge-1', registration), device('a', 'edge-1', registration), device('c', 'edge-2', registration), device('d', 'edge-1'), device('e', 'edge-1', registration, 'HTTP')]);
  t.deepEqual(seen.map((e) => e.name), ['a', 'b']);
});
