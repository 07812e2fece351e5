// A Modbus RTU device in the controller, as pure decisions: placement only on a node whose shifud
// sees the device (its serial port is there), attached or not, with a reason naming the path when
// none does; the Deployment mounts the port at its own path with a supplemental group and keeps
// the restricted pod; an RTU device is never served by the shared host; a path outside /dev is refused.
import test from 'ava';
import { place, type PlacementPolicy, type PlacementRequest } from '../../controller/scheduling/placement.ts';
import type { CandidateNode } from '../../controller/scheduling/candidates.ts';
import { deviceShifuDeployment } from '../../controller/bundle/deployment.ts';
import { modeOf } from '../../controller/reconcile/mode.ts';
import { planDevice } from '../../controller/reconcile/plan.ts';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import type { EdgeDevice } from '../../controller/world.ts';

const Mi = 2 ** 20;
const Gi = 2 ** 30;
const policy: PlacementPolicy = { cooldownMs: 600_000, betterMemoryRatio: 2, betterDistanceKm: 1 };
const KEY = 'devices/plc';
const port = { path: '/dev/ttyUSB0', device: KEY };
const request: PlacementRequest = { cpuMillis: 10, memory: 32 * Mi, serialPort: port };
const node = (name: string, freeMemory: number, seen?: string[], extra: Partial<CandidateNode> = {}): CandidateNode =>
  ({ name, freeMemory, freeCpuMillis: 4000, ...(seen === undefined ? {} : { seen: new Set(seen) }), ...extra });
const NOW = 1_000_000_000;

test('an RTU device goes to the node that sees its port, however much roomier the others are', (t) => {
  const decision = place(request, [node('big', 8 * Gi, []), node('plc-box', 64 * Mi, [KEY]), node('old', 8 * Gi)], policy, NOW);
  t.like(decision, { kind: 'placed', node: 'plc-box' });
});

test('with no node seeing the port, the device waits with SerialPortNotFound naming the path', (t) => {
  const decision = place(request, [node('a', 8 * Gi, ['devices/other']), node('b', 8 * Gi)], policy, NOW);
  t.like(decision, { kind: 'pending', reason: 'SerialPortNotFound' });
  t.regex(decision.kind === 'pending' ? decision.message : '', /no node has serial port \/dev\/ttyUSB0.*2 node\(s\)/);
});

test('the node with the port but no room, or unavailable, makes the device wait as any other would', (t) => {
  const full = place(request, [node('a', 8 * Gi), node('plc-box', 16 * Mi, [KEY])], policy, NOW);
  t.like(full, { kind: 'pending', reason: 'NoNodeAvailable' });
  const down = place(request, [node('a', 8 * Gi), node('plc-box', 8 * Gi, [KEY], { unavailable: 'Node not Ready' })], policy, NOW);
  t.like(down, { kind: 'pending', reason: 'NoNodeAvailable' });
});

test('attached to a node: placed there only when its shifud sees the port', (t) => {
  t.like(place({ ...request, attachedNode: 'plc-box' }, [node('plc-box', 8 * Gi, [KEY])], policy, NOW), { kind: 'placed', node: 'plc-box' });
  const missing = place({ ...request, attachedNode: 'plc-box' }, [node('plc-box', 8 * Gi, []), node('other', 8 * Gi, [KEY])], policy, NOW);
  t.like(missing, { kind: 'pending', reason: 'SerialPortNotFound' });
  t.regex(missing.kind === 'pending' ? missing.message : '', /attached node plc-box has no usable serial port \/dev\/ttyUSB0/);
});

test('a port that moved to another node moves the device at once (no cooldown: the old node cannot serve it)', (t) => {
  const decision = place({ ...request, current: { node: 'a', placedAt: NOW - 1000 } }, [node('a', 8 * Gi, []), node('b', 1 * Gi, [KEY])], policy, NOW);
  t.like(decision, { kind: 'placed', node: 'b', moved: true });
});

test('devices other than RTU ignore what the nodes see', (t) => {
  const plain: PlacementRequest = { cpuMillis: request.cpuMillis, memory: request.memory };
  t.like(place(plain, [node('a', 8 * Gi, []), node('b', 1 * Gi, [KEY])], policy, NOW), { kind: 'placed', node: 'a' });
});

const settings = { namespace: 'deviceshifu', image: 'img', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '64Mi' };
const placement = { node: 'plc-box', placedAt: '2026-11-22T10:00:00Z', reason: 'most free memory' };
const rtu: EdgeDeviceSpec = { protocol: 'Modbus', connection: 'Serial', configMapName: 'plc', protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath: '/dev/serial/by-id/usb-FTDI_FT232R-if00-port0' } } };

test('the Deployment mounts the port at its own path as a CharDevice, with the serial group, and stays restricted and pinned', (t) => {
  const pod = deviceShifuDeployment({ name: 'plc', namespace: 'devices', spec: rtu }, 'plc', placement, settings).spec?.template.spec;
  const path = '/dev/serial/by-id/usb-FTDI_FT232R-if00-port0';
  t.deepEqual(pod?.volumes?.find((v) => v.name === 'serial-port'), { name: 'serial-port', hostPath: { path, type: 'CharDevice' } });
  t.deepEqual(pod?.containers[0]?.volumeMounts?.find((m) => m.name === 'serial-port'), { name: 'serial-port', mountPath: path });
  t.deepEqual(pod?.securityContext, { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' }, supplementalGroups: [20] });
  t.deepEqual(pod?.containers[0]?.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  t.deepEqual(pod?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields, [{ key: 'metadata.name', operator: 'In', values: ['plc-box'] }]);
  const other = deviceShifuDeployment({ name: 'plc', namespace: 'devices', spec: rtu }, 'plc', placement, { ...settings, serialGroup: 18 }).spec?.template.spec;
  t.deepEqual(other?.securityContext?.supplementalGroups, [18], 'the controller\'s --device-shifu-serial-group');
  t.deepEqual(pod?.containers[0]?.resources, { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '200m', memory: '64Mi' } }, 'no device plugin resource unless configured');
  const plugin = deviceShifuDeployment({ name: 'plc', namespace: 'devices', spec: rtu }, 'plc', placement, { ...settings, serialResource: 'devices.example.com/serial' }).spec?.template.spec;
  t.deepEqual(plugin?.containers[0]?.resources, { requests: { cpu: '10m', memory: '32Mi', 'devices.example.com/serial': '1' }, limits: { cpu: '200m', memory: '64Mi', 'devices.example.com/serial': '1' } });
  const tcp = deviceShifuDeployment({ name: 'plc', namespace: 'devices', spec: { protocol: 'Modbus', address: 'plc:502' } }, 'plc', placement, { ...settings, serialResource: 'devices.example.com/serial' }).spec?.template.spec;
  t.deepEqual(tcp?.containers[0]?.resources?.limits, { cpu: '200m', memory: '64Mi' }, 'only an RTU deviceShifu asks for it');
});

test('a Modbus TCP device gets no serial volume and no extra group', (t) => {
  const pod = deviceShifuDeployment({ name: 'plc', namespace: 'devices', spec: { protocol: 'Modbus', address: 'plc:502' } }, 'plc', placement, settings).spec?.template.spec;
  t.is(pod?.volumes?.some((v) => v.name === 'serial-port'), false);
  t.is(pod?.securityContext?.supplementalGroups, undefined);
});

const edgeDevice = (spec: EdgeDeviceSpec, annotations: Record<string, string> = {}): EdgeDevice => ({ metadata: { name: 'plc', namespace: 'devices', annotations }, spec }) as EdgeDevice;

test('an RTU device keeps a dedicated deviceShifu even when the cluster or the device asks for the shared host', (t) => {
  t.like(modeOf(edgeDevice(rtu), 'shared'), { mode: 'dedicated', kept: 'a Modbus RTU device has a serial port of its own: it keeps a dedicated deviceShifu' });
  t.like(modeOf(edgeDevice(rtu, { 'shifu.edgenesis.io/deviceshifu-mode': 'shared' }), 'dedicated'), { mode: 'dedicated' });
  t.like(modeOf(edgeDevice({ protocol: 'Modbus', address: 'plc:502' }), 'shared'), { mode: 'shared' });
});

test('a serialPath outside /dev (stored before the CRD rule) fails with InvalidSerialPath and no bundle', (t) => {
  for (const serialPath of ['/tmp/ttyUSB0', '/dev/../etc/shadow', '/dev/']) {
    const plan = planDevice({
      device: edgeDevice({ ...rtu, protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath } } }), now: NOW, nodes: [node('plc-box', 8 * Gi, [KEY])],
      configMapExists: true, pods: [], settings: { ...settings, imageFor: () => 'img', serviceType: 'ClusterIP', policy },
    });
    t.deepEqual(plan.bundle, [], serialPath);
    t.like(plan.view, { phase: 'Failed', scheduled: { reason: 'InvalidSerialPath' } }, serialPath);
    t.true(plan.view.scheduled.message.includes(serialPath));
  }
});
