// Malformed EdgeDevice addresses get a Reachable=False condition whose message says what to fix,
// and the devices next to them are probed as usual.
import test from 'ava';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { MockDevice, createDevice, fastConfig, startShifud, waitReachable } from './harness.ts';

const MALFORMED: ReadonlyArray<{ name: string; spec: EdgeDeviceSpec; says: RegExp }> = [
  { name: 'no-port', spec: { protocol: 'TCP', address: '10.0.0.5' }, says: /spec.address "10.0.0.5" has no port: write host:port, e.g. "10.0.0.5:502"/ },
  { name: 'bad-port', spec: { protocol: 'Socket', address: '10.0.0.5:99999' }, says: /has port 99999: use a port from 1 to 65535/ },
  { name: 'spaces', spec: { protocol: 'TCP', address: 'plc 3:502' }, says: /contains spaces/ },
  { name: 'ipv6', spec: { protocol: 'TCP', address: 'fd00::20:502' }, says: /IPv6 address without brackets: write \[address\]:port/ },
  { name: 'device-path', spec: { protocol: 'Socket', address: '/dev/ttyUSB0' }, says: /is a device path, not a network address/ },
  { name: 'health-path', spec: { protocol: 'HTTP', address: '10.0.0.5:80', customMetadata: { healthPath: 'health' } }, says: /healthPath "health" must start with "\/"/ },
  { name: 'usb-ids', spec: { protocol: 'USB', address: '/dev/ttyUSB0', customMetadata: { usbVendorId: 'FTDI', usbProductId: '6001' } }, says: /usbVendorId must be 1-4 hex digits/ },
];

test('each malformed address gets a condition saying what to fix, and good devices are still probed', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const node = uniqueName('shifud-bad');
  const good = await new MockDevice().up();
  t.teardown(() => good.down());
  for (const { name, spec } of MALFORMED) await createDevice(kube, namespace, name, { ...spec, attachedNode: node });
  await createDevice(kube, namespace, 'good', { protocol: 'TCP', address: good.address });
  await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace }));

  for (const { name, says } of MALFORMED) {
    const condition = await waitReachable(kube, namespace, name, { status: 'False', reason: 'InvalidSpec' });
    t.regex(condition.message, says, name);
  }
  await waitReachable(kube, namespace, 'good', { status: 'True' });
});

test('an LwM2M device is marked as not probed rather than unreachable', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  await createDevice(kube, namespace, 'meter', { protocol: 'LwM2M', address: '10.0.0.9:5683', protocolSettings: { LwM2MSetting: { endpointName: 'meter' } } });
  await startShifud(t, kube, fastConfig(uniqueName('shifud-lwm2m'), { deviceNamespace: namespace }));
  const condition = await waitReachable(kube, namespace, 'meter', { status: 'Unknown', reason: 'NotProbed' });
  t.regex(condition.message, /registers with its deviceShifu/);
});
