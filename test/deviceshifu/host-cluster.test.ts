// The shared host in Kubernetes mode, on a real control plane, with only the rights the controller
// grants its ServiceAccount: it serves the devices whose Services name it, each on its own port,
// writes each one's phase, reloads a device's ConfigMap on its own, takes devices on and lets them
// go without a restart; and it cannot write or read what is not its devices'. LwM2M devices on it
// each get their own CoAP endpoint behind their own Service, and their own status.lwm2m, which
// shifud lists in the node's EdgeNode.
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../../shared/log.ts';
import { loadConfig } from '../../shared/config.ts';
import { endpointFromKubeconfig, KubeClient } from '../../shared/kube/client.ts';
import { kubeStatusOf } from '../../shared/kube/errors.ts';
import { MERGE_PATCH } from '../../shared/kube/patch.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { runHost } from '../../deviceshifu/host/run.ts';
import { HostSettings } from '../../deviceshifu/host/settings.ts';
import type { Kube } from '../support/cluster.ts';
import { startController } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { createDevice, edgeCluster, readDevice, thermometer } from '../controller/fixtures.ts';
import { mockDevice } from './support/mocks.ts';
import { lwm2mClient, lwm2mInstructions } from './support/lwm2m.ts';
import { fastConfig, readEdgeNode, startShifud } from '../shifud/harness.ts';

const INSTRUCTIONS = 'instructions:\n  read_value:\n    readWrite: R\n  get_status:\n    readWrite: R\n';
const TELEMETRIES = 'telemetries:\n  device_health:\n    properties:\n      instruction: get_status\n      initialDelayMs: 100\n      intervalMs: 500\n';

async function configMap(kube: Kube, name: string): Promise<void> {
  await kube.core.createNamespacedConfigMap({ namespace: 'deviceshifu', body: { metadata: { name }, data: { instructions: INSTRUCTIONS, telemetries: TELEMETRIES } } });
}

async function portOf(kube: Kube, device: string): Promise<number> {
  return waitFor(`${device}'s Service`, async () => {
    const service = await kube.core.readNamespacedService({ namespace: 'deviceshifu', name: device }).catch(() => undefined);
    const port = service?.spec?.ports?.[0]?.targetPort;
    return typeof port === 'number' && port !== 8080 ? port : undefined;
  });
}

async function hostClient(t: ExecutionContext, kube: Kube, account: string): Promise<KubeClient> {
  const token = await waitFor(`ServiceAccount ${account}`, () => kube.core.createNamespacedServiceAccountToken({ namespace: 'deviceshifu', name: account, body: { spec: { audiences: [], expirationSeconds: 3600 } } }));
  const admin = endpointFromKubeconfig(kube.kubeconfigPath);
  const client = new KubeClient({ server: admin.server, ca: admin.ca, token: token.status?.token }, { maxSockets: Infinity });
  t.teardown(() => { client.close(); });
  return client;
}

const get = async (port: number, path: string): Promise<number | string> => {
  try {
    const reply = await fetch(`http://127.0.0.1:${String(port)}${path}`);
    await reply.arrayBuffer();
    return reply.status;
  } catch (err) {
    return ((err as Error).cause as { code?: string } | undefined)?.code ?? 'failed';
  }
};

const answers = (port: number, path: string, expected: number | string) => async (): Promise<true | undefined> => ((await get(port, path)) === expected ? true : undefined);

async function forbidden(client: KubeClient, method: string, path: string, options: Parameters<KubeClient['request']>[2] = {}): Promise<number | undefined> {
  try {
    await client.request(method, path, options);
    return 200;
  } catch (err) {
    return kubeStatusOf(err)?.code;
  }
}

test('the host serves its node\'s devices with the rights the controller gave it, and nothing more', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1');
  await startController(t, kube, ['--device-shifu-mode', 'shared']);
  const mocks = [await mockDevice(t, 'thermometer'), await mockDevice(t, 'thermometer'), await mockDevice(t, 'thermometer')];
  for (const name of ['cm-t1', 'cm-t2', 'cm-t3', 'cm-secret']) await configMap(kube, name);
  await createDevice(kube, thermometer('t1', { address: mocks[0]?.address, configMapName: 'cm-t1' }));
  await createDevice(kube, thermometer('t2', { address: mocks[1]?.address, configMapName: 'cm-t2' }));
  const [p1, p2] = [await portOf(kube, 't1'), await portOf(kube, 't2')];

  const client = await hostClient(t, kube, 'deviceshifu-host-edge-1');
  const settings = loadConfig(HostSettings, { argv: ['--host-id', 'edge-1', '--admin-port', '0', '--probe-interval-ms', '500', '--status-interval-ms', '0'], env: {} });
  const running = await runHost({ settings, env: {}, logger: createLogger('host', { level: 'silent' }), client });
  t.teardown(() => running.stop());

  await waitFor('t1 served', answers(p1, '/read_value', 200));
  await waitFor('t2 served', answers(p2, '/read_value', 200));
  await waitFor('t1\'s phase written by the host', async () => ((await readDevice(kube, 't1')).status?.edgedevicephase === 'Running' ? true : undefined));
  await waitFor('t2\'s phase written by the host', async () => ((await readDevice(kube, 't2')).status?.edgedevicephase === 'Running' ? true : undefined));
  const devices = await (await fetch(`http://127.0.0.1:${String(running.address.port)}/devices`)).json() as Array<{ name: string; port: number; listening: boolean }>;
  t.deepEqual(devices.map((d) => [d.name, d.port, d.listening]).sort(), [['t1', p1, true], ['t2', p2, true]]);
  const t1Gateway = running.host.get('t1', 'devices')?.gateway;

  // t2's ConfigMap loses read_value: t2 alone reloads
  await kube.core.patchNamespacedConfigMap({ namespace: 'deviceshifu', name: 'cm-t2', body: { data: { instructions: 'instructions:\n  get_status:\n    readWrite: R\n' } } }, MERGE_PATCH);
  await waitFor('t2 reloaded', answers(p2, '/read_value', 404));
  t.is(await get(p1, '/read_value'), 200, 't1 unchanged');

  // a third device joins and t2 leaves, with no restart: t1 keeps the very same gateway
  await createDevice(kube, thermometer('t3', { address: mocks[2]?.address, configMapName: 'cm-t3' }));
  const p3 = await portOf(kube, 't3');
  await waitFor('t3 served', answers(p3, '/read_value', 200));
  await kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices', name: 't2' });
  await waitFor('t2\'s port closed', answers(p2, '/read_value', 'ECONNREFUSED'));
  t.is(running.host.get('t1', 'devices')?.gateway, t1Gateway, 't1 was never restarted');
  t.is(await get(p1, '/read_value'), 200);

  // least privilege: what the host may not do, it cannot
  const devices1 = `/apis/${GROUP}/${VERSION}/namespaces/devices/edgedevices`;
  const patch = { contentType: 'application/merge-patch+json', body: { status: { edgedevicephase: 'Failed' } } };
  await waitFor('t2\'s rights gone with it', async () => ((await forbidden(client, 'PATCH', `${devices1}/t2/status`, patch)) === 403 ? true : undefined));
  t.is(await forbidden(client, 'PATCH', `${devices1}/not-mine/status`, patch), 403, 'no status write to a device it does not serve');
  t.is(await forbidden(client, 'PATCH', `${devices1}/t1`, { contentType: 'application/merge-patch+json', body: { metadata: { labels: { x: 'y' } } } }), 403, 'no write to its own device\'s spec');
  t.is(await forbidden(client, 'GET', '/api/v1/namespaces/deviceshifu/configmaps/cm-secret'), 403, 'no other ConfigMap');
  t.is(await forbidden(client, 'GET', '/api/v1/namespaces/deviceshifu/configmaps'), 403, 'no listing ConfigMaps');
  t.is(await forbidden(client, 'POST', '/api/v1/namespaces/deviceshifu/services', { body: { metadata: { name: 'x' }, spec: { ports: [{ port: 80 }] } } }), 403, 'no Service writes');
  t.is(await forbidden(client, 'GET', '/api/v1/namespaces/deviceshifu/secrets'), 403, 'no Secrets');
  t.is(await forbidden(client, 'GET', '/api/v1/namespaces/devices/secrets'), 403, 'no Secrets in the devices\' namespace');
  t.is((await readDevice(kube, 't1')).status?.edgedevicephase, 'Running');
});

function lwm2mDevice(name: string, configMapName: string): Record<string, unknown> {
  const device = thermometer(name, { configMapName }) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  const spec = { ...device.spec };
  delete spec.address; // an LwM2M device comes to deviceShifu; it has no address to call
  return { ...device, spec: { ...spec, protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: `${name}-ep`, securityMode: 'None' } } } };
}

test('two LwM2M devices and an HTTP device on one host: a CoAP endpoint each behind its own Service, and status.lwm2m each, listed in the EdgeNode', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1');
  await startController(t, kube, ['--device-shifu-mode', 'shared']);
  const thermo = await mockDevice(t, 'thermometer');
  await configMap(kube, 'cm-thermo');
  for (const name of ['cm-m1', 'cm-m2']) await kube.core.createNamespacedConfigMap({ namespace: 'deviceshifu', body: { metadata: { name }, data: lwm2mInstructions() } });
  await createDevice(kube, lwm2mDevice('m1', 'cm-m1'));
  await createDevice(kube, lwm2mDevice('m2', 'cm-m2'));
  await createDevice(kube, thermometer('thermo', { address: thermo.address, configMapName: 'cm-thermo' }));
  const [p1, p2, pt] = [await portOf(kube, 'm1'), await portOf(kube, 'm2'), await portOf(kube, 'thermo')];
  t.is(new Set([p1, p2, pt]).size, 3, 'a port each');
  const coap = async (name: string): Promise<unknown> => (await kube.core.readNamespacedService({ namespace: 'deviceshifu', name })).spec?.ports?.map((p) => [p.name, p.port, p.targetPort, p.protocol]);
  t.deepEqual(await coap('m1'), [['http', 80, p1, 'TCP'], ['coap', 5683, p1, 'UDP']], 'm1\'s Service: CoAP 5683/UDP to m1\'s port on the host');
  t.deepEqual(await coap('m2'), [['http', 80, p2, 'TCP'], ['coap', 5683, p2, 'UDP']]);
  t.deepEqual(await coap('thermo'), [['http', 80, pt, 'TCP']], 'no CoAP port for an HTTP device');

  const client = await hostClient(t, kube, 'deviceshifu-host-edge-1');
  const settings = loadConfig(HostSettings, { argv: ['--host-id', 'edge-1', '--admin-port', '0', '--probe-interval-ms', '500', '--status-interval-ms', '0'], env: {} });
  const running = await runHost({ settings, env: {}, logger: createLogger('host', { level: 'silent' }), client });
  t.teardown(() => running.stop());
  await startShifud(t, kube, fastConfig('edge-1', { deviceNamespace: 'devices' }));
  await waitFor('m1 served, not registered', answers(p1, '/temperature', 503));
  await waitFor('m2 served, not registered', answers(p2, '/temperature', 503));

  // the clients reach the host where kube-proxy would send the Services' CoAP port: each its device's port
  const c1 = await lwm2mClient(t, p1, { endpointName: 'm1-ep' });
  const c2 = await lwm2mClient(t, p2, { endpointName: 'm2-ep' });
  c1.setTemperature(5.5);
  c2.setTemperature(6.5);
  const read = async (port: number, path: string, init: RequestInit = {}): Promise<string> => (await fetch(`http://127.0.0.1:${String(port)}${path}`, init)).text();
  t.is(await read(p1, '/temperature'), '5.5');
  t.is(await read(p2, '/temperature'), '6.5');
  t.is(await read(p2, '/colour', { method: 'PUT', body: 'blue' }), 'blue');
  t.is(c2.objects.value('/3311/0/5706'), 'blue');
  t.not(c1.objects.value('/3311/0/5706'), 'blue', 'm2\'s write did not reach m1');
  t.is(await get(pt, '/read_value'), 200, 'the HTTP device beside them');

  const s1 = await waitFor('m1\'s status.lwm2m', async () => (await readDevice(kube, 'm1')).status?.lwm2m);
  const s2 = await waitFor('m2\'s status.lwm2m', async () => (await readDevice(kube, 'm2')).status?.lwm2m);
  t.like(s1, { endpointName: 'm1-ep', address: c1.address });
  t.like(s2, { endpointName: 'm2-ep', address: c2.address });
  t.is((await readDevice(kube, 'thermo')).status?.lwm2m, undefined);
  const listed = await waitFor('the EdgeNode to list both clients', async () => {
    const endpoints = (await readEdgeNode(kube, 'edge-1'))?.status?.lwm2mEndpoints;
    return endpoints?.length === 2 ? endpoints : undefined;
  });
  t.deepEqual(listed.map((e) => [e.name, e.endpointName, e.address]), [['m1', 'm1-ep', c1.address], ['m2', 'm2-ep', c2.address]]);

  // m2 deregisters: its record alone goes, and m1 keeps being served by the same gateway
  const m1Gateway = running.host.get('m1', 'devices')?.gateway;
  t.is(await c2.deregister(), '2.02');
  await waitFor('m2\'s status.lwm2m gone', async () => ((await readDevice(kube, 'm2')).status?.lwm2m === undefined ? true : undefined));
  t.like((await readDevice(kube, 'm1')).status?.lwm2m, { endpointName: 'm1-ep' });
  t.is(running.host.get('m1', 'devices')?.gateway, m1Gateway);
  t.is(await read(p1, '/temperature'), '5.5');
});
