// Unattended discovery scans only the configured subnets and ports and reports what answers and
// no EdgeDevice declares, as candidates; it creates nothing.
import test from 'ava';
import { planScan, undeclared } from '../../shifud/discovery-plan.ts';
import type { EdgeDevice } from '../../shared/crds/edgedevice.ts';
import { API_VERSION, EDGE_DEVICE, GROUP, VERSION } from '../../shared/crds/resources.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { MockDevice, createDevice, fastConfig, startShifud } from './harness.ts';

test('a scan plan holds exactly the host addresses of the subnets, once each', (t) => {
  t.deepEqual(planScan(['192.168.1.0/29'], ['502'], 100), { ok: true, value: { addresses: ['192.168.1.1', '192.168.1.2', '192.168.1.3', '192.168.1.4', '192.168.1.5', '192.168.1.6'], ports: [502] } });
  t.deepEqual(planScan(['10.0.0.7/32', '10.0.0.5/31', '10.0.0.7/32'], ['80', '80', '8080'], 100), { ok: true, value: { addresses: ['10.0.0.7', '10.0.0.4', '10.0.0.5'], ports: [80, 8080] } });
  t.deepEqual(planScan(['192.168.1.77/30'], ['1'], 100), { ok: true, value: { addresses: ['192.168.1.77', '192.168.1.78'], ports: [1] } });
});

const REFUSED: ReadonlyArray<[string[], string[], number, string]> = [
  [['10.0.0.0/8'], ['502'], 1024, 'discoverySubnets hold 16777214 addresses, more than discoveryMaxAddresses (1024): list smaller subnets or raise the limit'],
  [['192.168.1.0/33'], ['502'], 1024, 'discoverySubnets "192.168.1.0/33" is not an IPv4 CIDR: write e.g. 192.168.1.0/24'],
  [['fd00::/120'], ['502'], 1024, 'discoverySubnets "fd00::/120" is not an IPv4 CIDR: write e.g. 192.168.1.0/24'],
  [['192.168.1.0'], ['502'], 1024, 'discoverySubnets "192.168.1.0" is not an IPv4 CIDR: write e.g. 192.168.1.0/24'],
  [['192.168.1.0/24'], ['70000'], 1024, 'discoveryPorts "70000" is not a port: use numbers from 1 to 65535'],
];

test('a plan too large or malformed is refused with what to change', (t) => {
  for (const [subnets, ports, max, message] of REFUSED) t.deepEqual(planScan(subnets, ports, max), { ok: false, message });
});

test('endpoints that EdgeDevices declare are not candidates', (t) => {
  const device = (name: string, address: string, protocol: 'TCP' | 'HTTP' = 'TCP'): EdgeDevice =>
    ({ apiVersion: API_VERSION, kind: EDGE_DEVICE.kind, metadata: { name }, spec: { protocol, address, customMetadata: protocol === 'HTTP' ? { healthPath: '/h' } : {} } });
  t.deepEqual(undeclared(['10.0.0.5:502', '10.0.0.6:502', '10.0.0.7:80'], [device('a', '10.0.0.5:502'), device('b', '10.0.0.7:80', 'HTTP')]), ['10.0.0.6:502']);
});

test('shifud scans only its configured subnet and ports and reports undeclared answers as candidates', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const declared = await new MockDevice().up();
  const stranger = await new MockDevice().up();
  t.teardown(async () => { await declared.down(); await stranger.down(); });
  await createDevice(kube, namespace, 'known', { protocol: 'TCP', address: declared.address });
  const shifud = await startShifud(t, kube, fastConfig(uniqueName('shifud-scan'), {
    deviceNamespace: namespace, discoverySubnets: ['127.0.0.0/29'], discoveryPorts: [String(declared.port), String(stranger.port)], discoveryIntervalSeconds: 3600,
  }));
  const scanner = shifud.scanner!;
  await waitFor('one scan', () => scanner.stats.scans > 0 ? true : undefined);
  t.deepEqual(scanner.candidates, [stranger.address]);
  t.is(scanner.stats.attempts, 6 * 2, 'six host addresses times two ports, nothing else');
  const list = await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: EDGE_DEVICE.plural, namespace }) as { items: unknown[] };
  t.is(list.items.length, 1, 'no EdgeDevice created');
});
