// Shared mode in planDevice and its parts (pure): which devices go to their node's host, what
// objects they bring, how ports are handed out, and what is left over when a device switches mode.
import test from 'ava';
import type { V1Deployment, V1Role, V1RoleBinding, V1Service } from '@kubernetes/client-node';
import { HOST_NODE_FLAGS } from '../../controller/bundle/host.ts';
import { planDevice, type PlanInput, type PlanSettings } from '../../controller/reconcile/plan.ts';
import { modeOf } from '../../controller/reconcile/mode.ts';
import { HostPorts } from '../../controller/reconcile/host-ports.ts';
import { serviceRecord, StringPool, type ServiceRecord } from '../../controller/records.ts';
import { hostObjects } from '../../controller/reconcile/host.ts';
import type { EdgeDevice } from '../../controller/world.ts';
import { assignmentOf } from '../../deviceshifu/host/assignment.ts';
import { ANNOTATION_MODE, HOST_FIRST_DEVICE_PORT, hostId, hostObjectName } from '../../shared/node-host.ts';

const pool = new StringPool();
const Gi = 2 ** 30;
const NOW = Date.parse('2026-11-26T12:00:00Z');
const settings: PlanSettings = {
  namespace: 'deviceshifu', imageFor: () => 'img', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '64Mi',
  serviceType: 'ClusterIP', policy: { cooldownMs: 600_000, betterMemoryRatio: 2, betterDistanceKm: 1 }, mode: 'shared',
};
const device = (spec: Partial<EdgeDevice['spec']> = {}, annotations: Record<string, string> = {}): EdgeDevice =>
  ({ metadata: { name: 'thermometer', namespace: 'devices', generation: 1, annotations }, spec: { protocol: 'HTTP', address: 'x:1', configMapName: 'cm', ...spec } }) as EdgeDevice;
const input = (d: EdgeDevice, extra: Partial<PlanInput> = {}): PlanInput => ({
  device: d, now: NOW, settings, nodes: [{ name: 'edge-1', freeMemory: 8 * Gi, freeCpuMillis: 4000 }], configMapExists: true, pods: [],
  mode: modeOf(d, 'shared'), hostPortOn: () => 10_007, ...extra,
});

test('a shared device brings its Role, the host\'s bindings, a ConfigMap Role and a Service targeting its port on the host', (t) => {
  const plan = planDevice(input(device()));
  t.deepEqual(plan.bundle.map((o) => `${o.kind ?? ''} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`), [
    'Role devices/deviceshifu-thermometer', 'RoleBinding devices/deviceshifu-thermometer',
    'Role deviceshifu/deviceshifu-thermometer.config', 'RoleBinding deviceshifu/deviceshifu-thermometer.config', 'Service deviceshifu/thermometer',
  ]);
  const bindings = plan.bundle.filter((o): o is V1RoleBinding => o.kind === 'RoleBinding');
  for (const b of bindings) t.deepEqual(b.subjects, [{ kind: 'ServiceAccount', name: 'deviceshifu-host-edge-1', namespace: 'deviceshifu' }]);
  const configRole = plan.bundle.find((o): o is V1Role => o.kind === 'Role' && o.metadata?.namespace === 'deviceshifu');
  t.deepEqual(configRole?.rules, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'], verbs: ['list', 'watch'] }]);
  const service = plan.bundle.at(-1) as V1Service;
  t.deepEqual(service.spec?.selector, { 'app.kubernetes.io/name': 'deviceshifu-host', 'shifu.edgenesis.io/deviceshifu-host': 'edge-1' });
  t.deepEqual(service.spec?.ports, [{ name: 'http', port: 80, targetPort: 10_007, protocol: 'TCP' }]);
  t.deepEqual(assignmentOf(service), { name: 'thermometer', namespace: 'devices', port: 10_007, configMap: 'cm' }, 'the host reads back what the controller wrote');
  t.like(plan.view, { nodeName: 'edge-1', scheduled: { status: 'True' }, bundleReady: { status: 'False', reason: 'Creating' } });
  t.regex(plan.view.scheduled.message, /shared host/);
  t.is(plan.url, 'http://thermometer.deviceshifu.svc');
});

test('a shared LwM2M device\'s Service maps CoAP 5683/UDP to its own port on the host, the number its HTTP side has on TCP', (t) => {
  const plan = planDevice(input(device({ protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: 'meter' } } })));
  t.is(plan.view.scheduled.status, 'True');
  t.regex(plan.view.scheduled.message, /shared host/, 'an LwM2M device may be shared');
  const service = plan.bundle.at(-1) as V1Service;
  t.deepEqual(service.spec?.ports, [{ name: 'http', port: 80, targetPort: 10_007, protocol: 'TCP' }, { name: 'coap', port: 5683, targetPort: 10_007, protocol: 'UDP' }]);
  t.deepEqual(assignmentOf(service), { name: 'thermometer', namespace: 'devices', port: 10_007, configMap: 'cm' }, 'one assignment, one port number');
  const records = serviceRecord(service, pool);
  t.is(records.shared?.port, 10_007, 'the controller reads the same port back');
});

test('the device\'s annotation overrides the cluster default either way; TCP and MQTT with a Secret stay dedicated and say why', (t) => {
  t.is(modeOf(device(), 'dedicated').mode, 'dedicated');
  t.is(modeOf(device({}, { [ANNOTATION_MODE]: 'shared' }), 'dedicated').mode, 'shared');
  t.is(modeOf(device({}, { [ANNOTATION_MODE]: 'dedicated' }), 'shared').mode, 'dedicated');
  t.is(modeOf(device({}, { [ANNOTATION_MODE]: 'nonsense' }), 'shared').mode, 'shared', 'an unknown value leaves the default');
  const tcp = modeOf(device({ protocol: 'TCP' }), 'shared');
  t.like(tcp, { mode: 'dedicated' });
  t.regex(tcp.kept ?? '', /TCP/);
  const mqtt = modeOf(device({ protocol: 'MQTT', protocolSettings: { MQTTSetting: { MQTTServerSecret: 'broker' } } }), 'shared');
  t.like(mqtt, { mode: 'dedicated' });
  const plan = planDevice(input(device({ protocol: 'TCP' })));
  t.true(plan.bundle.some((o) => o.kind === 'Deployment'), 'a TCP device gets its own Deployment');
  t.regex(plan.view.scheduled.message, /keeps a dedicated deviceShifu/);
});

function sharedService(name: string, node: string, port: number): ServiceRecord {
  return serviceRecord({
    metadata: { name, labels: { 'shifu.edgenesis.io/edgedevice': name, 'shifu.edgenesis.io/edgedevice-namespace': 'devices', 'shifu.edgenesis.io/deviceshifu-host': hostId(node) },
      annotations: { 'shifu.edgenesis.io/host-node': node, 'shifu.edgenesis.io/configmap': 'cm' } },
    spec: { ports: [{ name: 'http', port: 80, targetPort: port }] },
  }, pool);
}

function cache(records: ServiceRecord[]): { get: (name: string) => ServiceRecord | undefined; forEach: (visit: (r: ServiceRecord, key: string) => void) => void } {
  const byName = new Map(records.map((r) => [r.device?.split('/')[1] ?? '', r]));
  return { get: (name) => byName.get(name), forEach: (visit) => { byName.forEach((r, k) => { visit(r, k); }); } };
}

test('ports: a device keeps its recorded port, a new one takes the lowest free, and two placed at once never share one', (t) => {
  const ports = new HostPorts();
  const services = cache([sharedService('a', 'edge-1', HOST_FIRST_DEVICE_PORT), sharedService('c', 'edge-1', HOST_FIRST_DEVICE_PORT + 2), sharedService('z', 'edge-2', HOST_FIRST_DEVICE_PORT + 1)]);
  const who = (name: string): { device: string; service: string; namespace: string } => ({ device: `devices/${name}`, service: name, namespace: 'deviceshifu' });
  t.is(ports.portFor(who('a'), 'edge-1', services), HOST_FIRST_DEVICE_PORT, 'a keeps its port');
  t.is(ports.portFor(who('b'), 'edge-1', services), HOST_FIRST_DEVICE_PORT + 1, 'b takes the lowest free on edge-1 (edge-2\'s ports do not count)');
  t.is(ports.portFor(who('d'), 'edge-1', services), HOST_FIRST_DEVICE_PORT + 3, 'd, placed before b\'s Service is cached, does not get b\'s port');
  t.is(ports.portFor(who('b'), 'edge-1', services), HOST_FIRST_DEVICE_PORT + 1, 'b asks again: the same port');
  t.is(ports.portFor(who('a'), 'edge-2', services), HOST_FIRST_DEVICE_PORT, 'a moved to edge-2 takes a free port there');
  ports.release('devices/b');
  t.is(ports.portFor(who('e'), 'edge-1', services), HOST_FIRST_DEVICE_PORT + 1, 'b gone: its port is free again');
});

test('switching mode removes what the other mode left, and the device stays on its node', (t) => {
  const d = device();
  const wasDedicated = planDevice(input(d, { deployment: { resourceVersion: 1, device: 'devices/thermometer', node: 'edge-1', placedAt: '2026-11-26T10:00:00.000Z', placementReason: 'most free memory (8Gi)', generation: 1, observedGeneration: 1, availableReplicas: 1 } }));
  t.deepEqual(wasDedicated.remove, [['Deployment', 'deviceshifu', 'thermometer-deployment'], ['ServiceAccount', 'deviceshifu', 'deviceshifu-thermometer']]);
  t.is(wasDedicated.bundle.find((o) => o.kind === 'Service')?.metadata?.annotations?.['shifu.edgenesis.io/placed-at'], '2026-11-26T10:00:00.000Z', 'placement time kept');
  const shared = sharedService('thermometer', 'edge-1', HOST_FIRST_DEVICE_PORT).shared;
  const wasShared = planDevice(input(d, { mode: { mode: 'dedicated' }, ...(shared === undefined ? {} : { shared }) }));
  t.deepEqual(wasShared.remove, [['RoleBinding', 'deviceshifu', 'deviceshifu-thermometer.config'], ['Role', 'deviceshifu', 'deviceshifu-thermometer.config']]);
  t.true(wasShared.bundle.some((o) => o.kind === 'Deployment'));
});

test('a host\'s objects do not depend on its devices: its Role lists and watches Services, nothing else', (t) => {
  const objects = hostObjects('edge-1', { ...settings, image: 'img' });
  t.deepEqual(objects.map((o) => `${o.kind ?? ''} ${o.metadata?.name ?? ''}`), ['ServiceAccount', 'Role', 'RoleBinding', 'Deployment'].map((k) => `${k} deviceshifu-host-edge-1`));
  t.deepEqual((objects[1] as V1Role).rules, [{ apiGroups: [''], resources: ['services'], verbs: ['list', 'watch'] }]);
  const env = (objects[3] as V1Deployment).spec?.template.spec?.containers[0]?.env;
  t.is(env?.find((e) => e.name === 'NODE_FLAGS')?.value, HOST_NODE_FLAGS.join(' '), 'deviceShifu\'s own flags, with the host\'s old-generation cap');
  t.true(HOST_NODE_FLAGS.includes('--max-old-space-size=48'), 'a cap of its own: without one a loaded host outgrows its container');
  const flagged = hostObjects('edge-1', { ...settings, image: 'img', nodeFlags: ['--lite-mode'] })[3] as V1Deployment;
  t.is(flagged.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'NODE_FLAGS')?.value, '--lite-mode', 'the controller\'s setting replaces them');
  const long = 'a-very-long-node-name.with.dots.and.more.than.forty.characters.example.com';
  t.true(hostObjectName(long).length <= 63, 'a long node name still makes a valid name and label value');
  t.not(hostId(long), hostId(`${long}x`));
});
