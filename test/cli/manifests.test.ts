// What `device add` writes (short form and Shifu folders), which kubeconfig and controller the
// CLI picks, and the request `call` makes: pure, no cluster.
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { UsageError } from '../../cli/args.ts';
import { deviceRequest } from '../../cli/commands/call.ts';
import { chooseController, chooseKubeconfig } from '../../cli/connection.ts';
import { shortFormManifests, type ShortForm } from '../../cli/device-manifests.ts';
import { planDir, readShifuDir, type DirDocument } from '../../cli/shifu-dir.ts';
import { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { Validator } from '../../shared/validation.ts';
import { parseConfig } from '../../deviceshifu/config/parse.ts';
import { shifuExample } from '../support/shifu/index.ts';
import type { KubeObject } from '../../cli/device-manifests.ts';

const THERMO: ShortForm = {
  name: 'thermo', namespace: 'devices', deviceShifuNamespace: 'deviceshifu', protocol: 'http', address: '10.0.0.5:8080',
  instructions: ['read_value:R', 'get_status:r', 'set_unit'], telemetries: ['get_status:1000'], node: 'edge-1',
};

test('the short form gives Shifu\'s ConfigMap and an EdgeDevice naming it, valid for the CRD and for deviceShifu', (t) => {
  const [configMap, edgeDevice] = shortFormManifests(THERMO);
  t.like(configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'thermo-configmap', namespace: 'deviceshifu', labels: { 'app.kubernetes.io/managed-by': 'edgeshifu-cli' } } });
  t.deepEqual(edgeDevice, {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice',
    metadata: { name: 'thermo', namespace: 'devices', labels: { 'app.kubernetes.io/managed-by': 'edgeshifu-cli' } },
    spec: { sku: 'thermo', connection: 'Ethernet', protocol: 'HTTP', address: '10.0.0.5:8080', attachedNode: 'edge-1', configMapName: 'thermo-configmap' },
  });
  t.deepEqual(new Validator(EdgeDeviceSpec, 'spec').errors(edgeDevice.spec), []);
  const config = parseConfig(configMap.data as Record<string, string>);
  t.deepEqual([...config.instructions.values()].map((i) => [i.name, i.readWrite]), [['read_value', 'R'], ['get_status', 'R'], ['set_unit', 'RW']]);
  t.deepEqual(config.telemetries.map((tm) => [tm.instruction, tm.intervalMs]), [['get_status', 1000]]);
  t.is(config.driver.sku, 'thermo');
});

test('the short form takes an MQTT topic, a location and a ConfigMap name', (t) => {
  const [configMap, edgeDevice] = shortFormManifests({
    name: 'press', namespace: 'line-1', deviceShifuNamespace: 'ds', protocol: 'MQTT', address: 'broker:1883', instructions: ['mqtt_data:R'], telemetries: [],
    mqttTopic: '/press/1', zone: 'hall-a', latitude: '48.1', longitude: '11.5', configMapName: 'press-config', sku: 'P-100', connection: 'wireless',
  });
  t.like(configMap, { metadata: { name: 'press-config', namespace: 'ds' } });
  t.like(edgeDevice, { spec: {
    protocol: 'MQTT', sku: 'P-100', connection: 'Wireless', protocolSettings: { MQTTSetting: { MQTTTopic: '/press/1' } },
    location: { zone: 'hall-a', latitude: 48.1, longitude: 11.5 }, configMapName: 'press-config',
  } });
  t.deepEqual(new Validator(EdgeDeviceSpec, 'spec').errors(edgeDevice.spec), []);
});

const shortFormMistakes: readonly [Partial<ShortForm>, RegExp][] = [
  [{ name: 'Thermo_1' }, /EdgeDevice name "Thermo_1" cannot name its deviceShifu Service/],
  [{ protocol: 'BACnet' }, /--protocol BACnet is not one of HTTP, HTTPCommandline/],
  [{ instructions: [] }, /give at least one --instruction/],
  [{ instructions: ['read value'] }, /--instruction read value: write name or name:R/],
  [{ instructions: ['read_value:RX'] }, /--instruction read_value:RX: the access after ":" is R, W or RW/],
  [{ telemetries: ['nope:1000'] }, /--telemetry nope:1000: write instruction:intervalMs/],
  [{ telemetries: ['get_status:soon'] }, /--telemetry get_status:soon/],
  [{ latitude: '48' }, /--latitude and --longitude go together/],
  [{ latitude: '91', longitude: '0' }, /--latitude 91: a number from -90 to 90/],
  [{ mqttTopic: '/t' }, /--mqtt-topic is for --protocol MQTT/],
  [{ connection: 'Bluetooth' }, /--connection Bluetooth is not one of Ethernet, USB, Serial, Wireless/],
];

for (const [change, message] of shortFormMistakes) {
  test(`a short-form mistake is a usage error: ${JSON.stringify(change)}`, (t) => {
    const err = t.throws(() => shortFormManifests({ ...THERMO, ...change }), { instanceOf: UsageError });
    t.regex(err.message, message);
  });
}

function docs(...objects: readonly object[]): DirDocument[] {
  return objects.map((object, i) => ({ file: `f${String(i)}.yaml`, object: object as KubeObject }));
}

const [SHIFU_DEVICE] = shifuExample('thermometer');
const [SHIFU_CONFIGMAP] = shifuExample('thermometer-configmap');
/** Shifu's own deviceShifu Deployment and Service for the thermometer, as its example folder has them. */
const SHIFU_DEPLOYMENT = {
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deviceshifu-thermometer-deployment', namespace: 'deviceshifu' },
  spec: { template: { spec: {
    containers: [{ name: 'deviceshifu-http', env: [{ name: 'EDGEDEVICE_NAME', value: 'edgedevice-thermometer' }] }],
    volumes: [{ name: 'deviceshifu-config', configMap: { name: 'thermometer-configmap-0.0.1' } }],
  } } },
};
const SHIFU_SERVICE = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'deviceshifu-thermometer', namespace: 'deviceshifu' } };
const MOCK_DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'thermometer', namespace: 'devices' } };

test('a Shifu example folder: EdgeDevice and ConfigMap applied, configMapName filled in, Shifu\'s deviceShifu skipped', (t) => {
  const plan = planDir(docs(SHIFU_DEVICE!, SHIFU_CONFIGMAP!, SHIFU_DEPLOYMENT, SHIFU_SERVICE, MOCK_DEPLOYMENT), { deviceShifuNamespace: 'deviceshifu' });
  t.deepEqual(plan.apply.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`), [
    'ConfigMap deviceshifu/thermometer-configmap-0.0.1', 'EdgeDevice devices/edgedevice-thermometer',
  ]);
  t.like(plan.apply[1], { spec: { configMapName: 'thermometer-configmap-0.0.1', address: 'thermometer.devices.svc.cluster.local:11111' } });
  for (const o of plan.apply) t.is(o.metadata.labels?.['app.kubernetes.io/managed-by'], 'edgeshifu-cli', `${o.kind} is labelled as written by edgeshifu, so device rm removes it`);
  t.deepEqual(plan.notes, [
    'EdgeDevice edgedevice-thermometer: spec.configMapName set to thermometer-configmap-0.0.1',
    'skipped Deployment deviceshifu/deviceshifu-thermometer-deployment (f2.yaml): edgeshifu\'s controller writes the deviceShifu itself',
    'skipped Service deviceshifu/deviceshifu-thermometer (f3.yaml): edgeshifu\'s controller writes the deviceShifu itself',
    'skipped Deployment devices/thermometer (f4.yaml): not an EdgeDevice or ConfigMap (apply it with kubectl if you need it)',
  ]);
  t.like(planDir(docs(SHIFU_DEVICE!, SHIFU_CONFIGMAP!), { namespace: 'plant', deviceShifuNamespace: 'deviceshifu' }).apply[1], { metadata: { namespace: 'plant' } });
});

test('with several ConfigMaps, Shifu\'s Deployment says which is the device\'s; without it the user is asked', (t) => {
  const other = { ...SHIFU_CONFIGMAP!, metadata: { name: 'agv-configmap', namespace: 'deviceshifu' } };
  const plan = planDir(docs(SHIFU_DEVICE!, other, SHIFU_CONFIGMAP!, SHIFU_DEPLOYMENT), { deviceShifuNamespace: 'deviceshifu' });
  t.like(plan.apply.find((o) => o.kind === 'EdgeDevice'), { spec: { configMapName: 'thermometer-configmap-0.0.1' } });
  const err = t.throws(() => planDir(docs(SHIFU_DEVICE!, other, SHIFU_CONFIGMAP!), { deviceShifuNamespace: 'deviceshifu' }));
  t.regex(err.message, /EdgeDevice devices\/edgedevice-thermometer \(f0.yaml\): set spec.configMapName .* several \(agv-configmap, thermometer-configmap-0.0.1\)/);
  t.throws(() => planDir(docs(SHIFU_DEVICE!), { deviceShifuNamespace: 'deviceshifu' }), { message: /the folder has no ConfigMap/ });
  t.throws(() => planDir(docs(SHIFU_CONFIGMAP!), { deviceShifuNamespace: 'deviceshifu' }), { message: /no EdgeDevice .* among 1 documents/ });
  const named = { ...SHIFU_DEVICE!, spec: { ...(SHIFU_DEVICE as unknown as { spec: object }).spec, configMapName: 'mine' } };
  t.like(planDir(docs(named), { deviceShifuNamespace: 'deviceshifu' }).apply[0], { spec: { configMapName: 'mine' } }, 'a configMapName given is kept');
});

test('readShifuDir reads every YAML file of a folder, and names the file of a YAML mistake', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-cli-dir-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'edgedevice.yaml'), stringify(SHIFU_DEVICE));
  await writeFile(join(dir, 'configmap.yml'), stringify(SHIFU_CONFIGMAP));
  await writeFile(join(dir, 'README.md'), '# not YAML');
  const read = await readShifuDir(dir);
  t.deepEqual(read.map((d) => [d.file, d.object.kind]), [[join(dir, 'configmap.yml'), 'ConfigMap'], [join(dir, 'edgedevice.yaml'), 'EdgeDevice']]);
  await writeFile(join(dir, 'broken.yaml'), 'kind: [unclosed');
  await t.throwsAsync(readShifuDir(dir), { message: new RegExp(`^${join(dir, 'broken.yaml')}: `) });
  await t.throwsAsync(readShifuDir(join(dir, 'missing')), { message: /--from-dir .*missing: no such folder or file/ });
});

const kubeconfigs: readonly [string, { flag?: string; env?: NodeJS.ProcessEnv; exists?: string[] }, string | undefined][] = [
  ['--kubeconfig first', { flag: '/k', env: { KUBECONFIG: '/e' } }, '/k'],
  ['then $KUBECONFIG (its first file)', { env: { KUBECONFIG: ':/e1:/e2' } }, '/e1'],
  ['then the local stack', { env: { EDGESHIFU_HOME: '/h' }, exists: ['/h/local/admin.kubeconfig', '/home/u/.kube/config'] }, '/h/local/admin.kubeconfig'],
  ['then the dev cluster', { env: { EDGESHIFU_HOME: '/h' }, exists: ['/h/dev-cluster/admin.kubeconfig', '/home/u/.kube/config'] }, '/h/dev-cluster/admin.kubeconfig'],
  ['then ~/.kube/config', { env: { EDGESHIFU_HOME: '/h' }, exists: ['/home/u/.kube/config'] }, '/home/u/.kube/config'],
  ['else none', { env: { EDGESHIFU_HOME: '/h' } }, undefined],
];

for (const [what, inputs, path] of kubeconfigs) {
  test(`kubeconfig: ${what}`, (t) => {
    const exists = new Set(inputs.exists ?? []);
    t.is(chooseKubeconfig({ flag: inputs.flag, env: inputs.env ?? {}, homedir: '/home/u', exists: (p) => exists.has(p) })?.path, path);
  });
}

test('the controller: --controller, $EDGESHIFU_CONTROLLER, the stack\'s record, its default port, else the service proxy', (t) => {
  const base = { flag: undefined, env: {}, stackControllerUrl: undefined, localStack: false };
  t.like(chooseController({ ...base, flag: 'http://c:1/', env: { EDGESHIFU_CONTROLLER: 'http://e:2' } }), { kind: 'direct', url: 'http://c:1', source: '--controller' });
  t.like(chooseController({ ...base, env: { EDGESHIFU_CONTROLLER: 'http://e:2' }, stackControllerUrl: 'http://s:3' }), { url: 'http://e:2' });
  t.like(chooseController({ ...base, stackControllerUrl: 'http://127.0.0.1:18080', localStack: true }), { url: 'http://127.0.0.1:18080' });
  t.like(chooseController({ ...base, localStack: true }), { url: 'http://127.0.0.1:8080' });
  t.deepEqual(chooseController(base), { kind: 'proxy', namespace: 'edgeshifu-system', service: 'edgeshifu-controller' });
});

test('call builds the deviceShifu request: encoded instruction and parameters, GET unless there is a body', (t) => {
  t.deepEqual(deviceRequest('read_value', [], {}), { method: 'GET', path: '/read_value' });
  t.deepEqual(deviceRequest('move', ['x=1', 'note=a b&c', 'empty='], { data: '{"speed":2}', contentType: 'application/json' }),
    { method: 'POST', path: '/move?x=1&note=a+b%26c&empty=', body: '{"speed":2}', contentType: 'application/json' });
  t.deepEqual(deviceRequest('set', [], { method: 'put', data: 'on' }), { method: 'PUT', path: '/set', body: 'on', contentType: 'text/plain' });
  t.throws(() => deviceRequest('a/b', [], {}), { instanceOf: UsageError, message: /must be one name/ });
  t.throws(() => deviceRequest('read', ['novalue'], {}), { instanceOf: UsageError, message: '--param novalue: write it as key=value' });
  t.throws(() => deviceRequest('read', [], { method: 'GE T' }), { instanceOf: UsageError });
});
