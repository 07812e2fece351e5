// ModbusSetting against the real API server: good settings are stored with their defaults, and
// each mistake is refused with the message its CEL rule or schema gives, naming the field.
import test from 'ava';
import { freshNamespace, sharedKube, uniqueName, type Kube } from '../support/cluster.ts';
import { installCrds, rejection } from '../support/crds.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';

let kube: Kube;
test.before(async () => {
  kube = await sharedKube();
  await installCrds(kube);
});

async function createDevice(namespace: string, spec: unknown): Promise<{ spec: Record<string, unknown> }> {
  return await kube.custom.createNamespacedCustomObject({
    group: GROUP, version: VERSION, namespace, plural: 'edgedevices', fieldValidation: 'Strict',
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name: uniqueName('modbus') }, spec },
  }) as { spec: Record<string, unknown> };
}

test('a Modbus TCP device and an RTU device are stored, with the defaults filled in', async (t) => {
  const namespace = await freshNamespace(t, kube, 'modbus');
  const tcp = await createDevice(namespace, { protocol: 'Modbus', address: 'plc:502', protocolSettings: { ModbusSetting: { unitId: 3 } } });
  t.deepEqual(tcp.spec.protocolSettings, { ModbusSetting: { mode: 'TCP', unitId: 3, byteOrder: 'BigEndian', wordOrder: 'BigEndian', timeoutMs: 1000 } });
  const rtu = await createDevice(namespace, { protocol: 'Modbus', connection: 'Serial', protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath: '/dev/ttyUSB0', baudRate: 19200, parity: 'none', stopBits: 2, dataBits: 8, wordOrder: 'LittleEndian' } } });
  t.like(rtu.spec.protocolSettings, { ModbusSetting: { mode: 'RTU', unitId: 1, serialPath: '/dev/ttyUSB0' } });
});

const MISTAKES: ReadonlyArray<{ mistake: string; spec: Record<string, unknown>; names: readonly string[] }> = [
  { mistake: 'a TCP device without an address', spec: { protocol: 'Modbus' }, names: ['spec.address', 'a Modbus TCP device needs spec.address'] },
  { mistake: 'RTU without a serial path', spec: { protocol: 'Modbus', protocolSettings: { ModbusSetting: { mode: 'RTU' } } }, names: ['spec.protocolSettings.ModbusSetting.serialPath', 'Modbus RTU needs spec.protocolSettings.ModbusSetting.serialPath'] },
  { mistake: 'serial fields on a TCP device', spec: { protocol: 'Modbus', address: 'plc:502', protocolSettings: { ModbusSetting: { baudRate: 9600 } } }, names: ['spec.protocolSettings.ModbusSetting.mode', 'only read with mode: RTU'] },
  { mistake: 'a unit id over 247', spec: { protocol: 'Modbus', address: 'plc:502', protocolSettings: { ModbusSetting: { unitId: 248 } } }, names: ['spec.protocolSettings.ModbusSetting.unitId', 'less than or equal to 247'] },
  { mistake: 'an unknown mode', spec: { protocol: 'Modbus', address: 'plc:502', protocolSettings: { ModbusSetting: { mode: 'ASCII' } } }, names: ['spec.protocolSettings.ModbusSetting.mode', '"RTU"'] },
  { mistake: 'an unknown word order', spec: { protocol: 'Modbus', address: 'plc:502', protocolSettings: { ModbusSetting: { wordOrder: 'CDAB' } } }, names: ['spec.protocolSettings.ModbusSetting.wordOrder', '"LittleEndian"'] },
  { mistake: 'a relative serial path', spec: { protocol: 'Modbus', protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath: 'ttyUSB0' } } }, names: ['spec.protocolSettings.ModbusSetting.serialPath', 'an absolute path under /dev'] },
  { mistake: 'a serial path outside /dev', spec: { protocol: 'Modbus', protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath: '/tmp/ttyUSB0' } } }, names: ['spec.protocolSettings.ModbusSetting.serialPath', 'an absolute path under /dev'] },
  { mistake: 'a serial path climbing out of /dev', spec: { protocol: 'Modbus', protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath: '/dev/../etc/shadow' } } }, names: ['spec.protocolSettings.ModbusSetting.serialPath', 'an absolute path under /dev'] },
  { mistake: '7 data bits without parity', spec: { protocol: 'Modbus', protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath: '/dev/ttyS0', dataBits: 7, parity: 'none' } } }, names: ['spec.protocolSettings.ModbusSetting.dataBits', 'RTU sends 8 data bits'] },
  { mistake: 'a timeout of 0', spec: { protocol: 'Modbus', address: 'plc:502', protocolSettings: { ModbusSetting: { timeoutMs: 0 } } }, names: ['spec.protocolSettings.ModbusSetting.timeoutMs'] },
  { mistake: 'a ModbusSetting on an HTTP device', spec: { protocol: 'HTTP', address: 'x:1', protocolSettings: { ModbusSetting: { unitId: 1 } } }, names: ['spec.protocolSettings.ModbusSetting', 'spec.protocol is not Modbus'] },
];

for (const { mistake, spec, names } of MISTAKES) {
  test(`an EdgeDevice with ${mistake} is refused, naming the field`, async (t) => {
    const namespace = await freshNamespace(t, kube, 'modbus-bad');
    const message = await rejection(createDevice(namespace, spec));
    for (const name of names) t.true(message.includes(name), `"${name}" not in: ${message}`);
  });
}
