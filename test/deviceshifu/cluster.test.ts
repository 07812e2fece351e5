// deviceShifu in Kubernetes mode against the real control plane: Shifu's thermometer ConfigMap and
// EdgeDevice (only the address points at the mock, there being no cluster DNS here), read_value
// through the gateway, the phase written to the status subresource, the EdgeDevice watched;
// Shifu's TelemetryServices read from the API, with no more rights than the controller grants.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { stringify } from 'yaml';
import { createLogger } from '../../shared/log.ts';
import { loadConfig } from '../../shared/config.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { MERGE_PATCH } from '../../shared/kube/patch.ts';
import { endpointFromKubeconfig, KubeClient } from '../../shared/kube/client.ts';
import { deviceShifuRole, deviceShifuRoleBinding, deviceShifuServiceAccount } from '../../controller/bundle/access.ts';
import type { DeviceRef } from '../../controller/bundle/names.ts';
import { kubectl } from '../support/kubectl.ts';
import { listen } from '../../deviceshifu/mockdevice/http-device.ts';
import { runInCluster, type RunningDeviceShifu } from '../../deviceshifu/run.ts';
import { Settings } from '../../deviceshifu/settings.ts';
import { freshNamespace, sharedKube, type Kube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { shifuExample } from '../support/shifu/index.ts';
import { waitFor } from '../support/wait.ts';
import { ConfigDir, configMapData } from './support/configdir.ts';
import { logSink } from './support/device-shifu.ts';
import { mockDevice, scriptedDevice } from './support/mocks.ts';
import { aedesBroker } from './support/brokers.ts';

const CONFIGMAP = new URL('../support/shifu/thermometer-configmap.yaml', import.meta.url);

async function phaseOf(kube: Kube, namespace: string, name: string): Promise<string | undefined> {
  const object = await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name }) as { status?: { edgedevicephase?: string } };
  return object.status?.edgedevicephase;
}

interface InClusterInput {
  readonly namespace: string;
  readonly name: string;
  readonly data: Record<string, string>;
  /** The API client deviceShifu uses (default: the test's admin credentials). */
  readonly client?: KubeClient;
}

async function startInCluster(t: ExecutionContext, kube: Kube, input: InClusterInput): Promise<{ running: RunningDeviceShifu; url: string; logs: string[] }> {
  const config = await ConfigDir.create(t, input.data);
  const settings = loadConfig(Settings, { argv: ['--port', '0', '--config-dir', config.dir, '--status-interval-ms', '500', '--probe-interval-ms', '500'], env: {} });
  const logs: string[] = [];
  const client = input.client ?? KubeClient.fromKubeconfig(kube.kubeconfigPath);
  t.teardown(() => { client.close(); });
  const running = await runInCluster({
    settings, client, pollMs: 200,
    env: { EDGEDEVICE_NAME: input.name, EDGEDEVICE_NAMESPACE: input.namespace },
    logger: createLogger('deviceshifu', { destination: logSink(logs), level: 'debug' }),
  });
  t.teardown(() => running.stop());
  return { running, url: `http://127.0.0.1:${running.address.port}`, logs };
}

test('Shifu\'s thermometer example runs unchanged: read_value works and the EdgeDevice becomes Running', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'thermo');
  const thermometer = await mockDevice(t, 'thermometer');
  const [edgeDevice] = shifuExample('thermometer', namespace) as Array<{ metadata: { name: string }; spec: { address: string } }>;
  if (edgeDevice === undefined) throw new Error('no thermometer example');
  edgeDevice.spec.address = thermometer.address;
  await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', body: edgeDevice });
  const data = await configMapData(CONFIGMAP);
  await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'thermometer-configmap-0.0.1' }, data } });
  t.is(await phaseOf(kube, namespace, 'edgedevice-thermometer'), undefined);

  const { url, running } = await startInCluster(t, kube, { namespace, name: 'edgedevice-thermometer', data });
  const reading = await waitFor('read_value through deviceShifu', async () => {
    const response = await fetch(`${url}/read_value`);
    return response.status === 200 ? await response.text() : undefined;
  }, { timeoutMs: 20_000 });
  t.regex(reading, /^(1\d|2\d|30)$/);
  await waitFor('the EdgeDevice phase to become Running', async () => ((await phaseOf(kube, namespace, 'edgedevice-thermometer')) === 'Running' ? true : undefined), { timeoutMs: 30_000 });
  const described = await (await fetch(`${url}/instructions`)).json() as { device: { sku: string }; instructions: Array<{ name: string }> };
  t.is(described.device.sku, 'Thermometer');
  t.deepEqual(described.instructions.map((i) => i.name), ['get_status', 'read_value']);
  const writes = await (await fetch(`${url}/metrics`)).text();
  t.regex(writes, /edgeshifu_deviceshifu_status_writes_total\{result="ok"[^}]*\} [1-3]\n/);
  t.is(running.gateway.currentPhase(), 'Running');
});

test('in the cluster: a device without telemetry is Running by its probes, Unknown (not Failed) when gone, and an address change is followed', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'notel');
  const first = await scriptedDevice(t);
  const name = 'edgedevice-plain';
  await kube.custom.createNamespacedCustomObject({
    group: GROUP, version: VERSION, namespace, plural: 'edgedevices',
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name }, spec: { sku: 'plain', connection: 'Ethernet', address: first.address, protocol: 'HTTP' } },
  });
  const { url } = await startInCluster(t, kube, { namespace, name, data: { instructions: 'instructions:\n  echo:\n    readWrite: RW\n' } });
  await waitFor('Running from probes alone', async () => ((await phaseOf(kube, namespace, name)) === 'Running' ? true : undefined), { timeoutMs: 30_000 });
  const echo = await fetch(`${url}/echo`, { headers: { authorization: 'Bearer not-for-devices' } });
  t.is(echo.status, 200);
  t.false(first.requests.some((r) => r.headers.authorization !== undefined), 'no credential ever reaches the device');

  const second = await scriptedDevice(t);
  await kube.custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name, body: { spec: { address: second.address } } }, MERGE_PATCH);
  await waitFor('requests to follow the new address', async () => {
    await (await fetch(`${url}/echo`)).arrayBuffer();
    return second.requests.some((r) => r.url === '/echo') ? true : undefined;
  }, { timeoutMs: 20_000 });
  await second.close();
  await first.close();
  await waitFor('Unknown once the device is gone', async () => ((await phaseOf(kube, namespace, name)) === 'Unknown' ? true : undefined), { timeoutMs: 30_000 });
  t.not(await phaseOf(kube, namespace, name), 'Failed');
});

test('in the cluster: MQTT broker credentials come from the Secret the EdgeDevice names', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'mqttsec');
  const broker = await aedesBroker(t, { auth: { username: 'plant', password: 'fr0m-secret' } });
  await kube.core.createNamespacedSecret({ namespace, body: { metadata: { name: 'broker-login' }, stringData: { username: 'plant', password: 'fr0m-secret' } } });
  const [edgeDevice] = shifuExample('mqtt', namespace) as Array<{ metadata: { name: string }; spec: { address: string; protocolSettings: { MQTTSetting: Record<string, string> } } }>;
  if (edgeDevice === undefined) throw new Error('no mqtt example');
  edgeDevice.spec.address = `127.0.0.1:${broker.port}`;
  edgeDevice.spec.protocolSettings.MQTTSetting.MQTTServerSecret = 'broker-login';
  await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', body: edgeDevice });
  const { url, logs } = await startInCluster(t, kube, { namespace, name: edgeDevice.metadata.name, data: { instructions: 'instructions:\n  get_topicmsg1:\n    protocolPropertyList:\n      MQTTTopic: /test/test1\n' } });
  await waitFor('the EdgeDevice to become Running through the authenticated broker', async () => ((await phaseOf(kube, namespace, edgeDevice.metadata.name)) === 'Running' ? true : undefined), { timeoutMs: 30_000 });
  const publish = await fetch(`${url}/get_topicmsg1`, { method: 'POST', body: 'hello' });
  t.is(publish.status, 200);
  t.false(logs.some((l) => l.includes('fr0m-secret')), 'the Secret never reaches a log line');
});

test('Shifu\'s TelemetryService manifests apply unchanged with strict validation, and kubectl shows where they push', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'tsvc');
  const services = shifuExample('telemetryservice', namespace);
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '--validate=strict', '-f', '-'], services.map((o) => stringify(o)).join('---\n'));
  t.is(applied.code, 0, applied.stderr);
  t.is(applied.stderr.trim(), '', 'no warnings: every field is known');
  const stored = await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'telemetryservices', name: 'push-endpoint-tdengine' }) as { spec: { serviceSettings: { SQLSetting: Record<string, string> } } };
  t.like(stored.spec.serviceSettings.SQLSetting, { dbtype: 'TDengine', dbTable: 'testsubtable' });
  const listed = await kubectl(kube.kubeconfigPath, ['get', 'telemetryservices', '-n', namespace]);
  const [header, ...rows] = listed.stdout.trim().split('\n');
  t.regex(header ?? '', /^NAME\s+ENDPOINT\s+BROKER\s+TOPIC\s+AGE$/);
  t.true(rows.some((r) => /^push-endpoint-mqtt\s+\S+\/mqtt\s+192\.168\.14\.163:1883\s+\/test\/telemetry\s/.test(r)), rows.join('\n'));
});

/** "resource [names] [verbs]" rows of `kubectl auth can-i --list` beyond what every ServiceAccount may do. */
async function extraGrants(kube: Kube, user: string, namespace: string): Promise<string[]> {
  const rows = async (who: string): Promise<string[]> => {
    const result = await kubectl(kube.kubeconfigPath, ['auth', 'can-i', '--list', `--as=${who}`, '-n', namespace]);
    if (result.code !== 0) throw new Error(result.stderr);
    return result.stdout.trim().split('\n').slice(1).map((line) => line.trim().split(/\s{2,}|\s+(?=\[)/).join(' '));
  };
  const baseline = new Set(await rows('system:serviceaccount:default:nobody'));
  return (await rows(user)).filter((g) => !baseline.has(g)).sort();
}

/** The ServiceAccount, Role and RoleBinding the controller gives a deviceShifu, and a client holding that ServiceAccount's token. */
async function deviceShifuIdentity(t: ExecutionContext, kube: Kube, device: DeviceRef, shifuNamespace: string): Promise<{ client: KubeClient; user: string }> {
  const objects = [deviceShifuServiceAccount(device, shifuNamespace), deviceShifuRole(device), deviceShifuRoleBinding(device, shifuNamespace)];
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
  if (applied.code !== 0) throw new Error(applied.stderr);
  const name = objects[0]?.metadata?.name ?? '';
  const token = await kube.core.createNamespacedServiceAccountToken({ namespace: shifuNamespace, name, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const admin = endpointFromKubeconfig(kube.kubeconfigPath);
  const client = new KubeClient({ server: admin.server, ca: admin.ca, token: token.status?.token });
  t.teardown(() => { client.close(); });
  return { client, user: `system:serviceaccount:${shifuNamespace}:${name}` };
}

interface Push { readonly headers: IncomingHttpHeaders; readonly body: string }

async function pushReceiver(t: ExecutionContext): Promise<{ url: string; received: Push[] }> {
  const received: Push[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }); res.end(); });
  });
  const running = await listen(server, 'receiver', '127.0.0.1', 0);
  t.teardown(() => running.close());
  return { url: `http://${running.address}/`, received };
}

test('with only the rights the controller grants it, deviceShifu follows its EdgeDevice, writes its phase and pushes to the TelemetryService its telemetry names', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'tsvc');
  const shifuNamespace = await freshNamespace(t, kube, 'dshifu');
  const thermometer = await mockDevice(t, 'thermometer');
  const receiver = await pushReceiver(t);
  const [edgeDevice] = shifuExample('thermometer', namespace) as Array<{ metadata: { name: string }; spec: { address: string } }>;
  const [service] = shifuExample('telemetryservice', namespace) as Array<{ spec: { telemetrySeriveEndpoint: string } }>;
  if (edgeDevice === undefined || service === undefined) throw new Error('no Shifu example');
  edgeDevice.spec.address = thermometer.address;
  service.spec.telemetrySeriveEndpoint = receiver.url;
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], [edgeDevice, service].map((o) => stringify(o)).join('---\n'));
  t.is(applied.code, 0, applied.stderr);

  const { client, user } = await deviceShifuIdentity(t, kube, { name: edgeDevice.metadata.name, namespace }, shifuNamespace);
  t.deepEqual(await extraGrants(kube, user, namespace), [
    'edgedevices.shifu.edgenesis.io [] [edgedevice-thermometer] [get list watch]',
    'edgedevices.shifu.edgenesis.io/status [] [edgedevice-thermometer] [get patch]',
    'telemetryservices.shifu.edgenesis.io [] [] [get]',
  ]);
  t.deepEqual(await extraGrants(kube, user, shifuNamespace), [], 'nothing in its own namespace');
  const secrets = await kubectl(kube.kubeconfigPath, ['auth', 'can-i', 'get', 'secrets', `--as=${user}`, '-n', namespace]);
  t.is(secrets.stdout.trim(), 'no');

  const telemetries = [
    'telemetrySettings:', '  defaultPushToServer: true',
    'telemetries:',
    '  device_health:', '    properties:', '      instruction: read_value', '      initialDelayMs: 0', '      intervalMs: 200',
    '      pushSettings:', '        telemetryCollectionService: push-endpoint-1',
    '  elsewhere:', '    properties:', '      instruction: get_status', '      initialDelayMs: 0', '      intervalMs: 200',
    '      pushSettings:', '        telemetryCollectionService: not-created',
  ].join('\n');
  const data = { instructions: 'instructions:\n  read_value:\n    readWrite: R\n  get_status:\n    readWrite: R\n', telemetries };
  const { logs } = await startInCluster(t, kube, { namespace, name: edgeDevice.metadata.name, data, client });
  const push = await waitFor('a push to the TelemetryService\'s endpoint', () => receiver.received[0], { timeoutMs: 20_000 });
  t.regex(push.body, /^(1\d|2\d|30)$/);
  t.is(push.headers.authorization, `Basic ${Buffer.from('admin:password').toString('base64')}`);
  await waitFor('the EdgeDevice phase to become Running', async () => ((await phaseOf(kube, namespace, edgeDevice.metadata.name)) === 'Running' ? true : undefined), { timeoutMs: 30_000 });
  await waitFor('the push to an absent TelemetryService to be reported', () => (logs.some((l) => l.includes('"telemetry":"elsewhere"') && l.includes('neither a URL nor a known TelemetryService')) ? true : undefined), { timeoutMs: 10_000 });
  t.false(logs.some((l) => /forbidden/i.test(l)), 'no call was refused');
});
