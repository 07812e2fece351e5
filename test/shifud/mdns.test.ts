// mDNS (DNS-SD) discovery: a recorded browse turned into candidates inside the configured subnets
// only; the browse asking for service types, then for their instances; and shifud reporting the
// undeclared ones as candidates against the real control plane. Multicast does not reach across
// this test machine's interfaces, so the sockets are scripted (multicast-dns is not exercised).
import test from 'ava';
import { browseAddresses, mdnsServices, serviceTypes, SERVICE_TYPES, type MdnsRecord } from '../../shifud/mdns.ts';
import { browseMdns, type MdnsSocket } from '../../shifud/mdns-browser.ts';
import { inSubnets } from '../../shifud/discovery-plan.ts';
import { GROUP, VERSION, EDGE_DEVICE } from '../../shared/crds/resources.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { createDevice, fastConfig, startShifud } from './harness.ts';

/** A gateway's line as a browse hears it: service types, then instances with SRV and A records. */
const TYPES: MdnsRecord[] = [
  { type: 'PTR', name: SERVICE_TYPES, data: '_http._tcp.local' },
  { type: 'PTR', name: '_services._dns-sd._udp.local.', data: '_opcua-tcp._tcp.local' },
];
const INSTANCES: Record<string, MdnsRecord[]> = {
  '_http._tcp.local': [
    { type: 'PTR', name: '_http._tcp.local', data: 'Thermo-1._http._tcp.local' },
    { type: 'SRV', name: 'thermo-1._http._tcp.local', data: { port: 8080, target: 'Thermo-1.local', priority: 0, weight: 0 } },
    { type: 'A', name: 'thermo-1.local', data: '192.168.7.20' },
    { type: 'PTR', name: '_http._tcp.local', data: 'office-printer._http._tcp.local' },
    { type: 'SRV', name: 'office-printer._http._tcp.local', data: { port: 80, target: 'printer.local' } },
    { type: 'A', name: 'printer.local', data: '10.20.0.9' },
  ],
  '_opcua-tcp._tcp.local': [
    { type: 'PTR', name: '_opcua-tcp._tcp.local', data: 'press-3._opcua-tcp._tcp.local' },
    { type: 'SRV', name: 'press-3._opcua-tcp._tcp.local', data: { port: 4840, target: 'press-3.local' } },
    { type: 'A', name: 'press-3.local', data: '192.168.7.31' },
    { type: 'AAAA', name: 'press-3.local', data: 'fe80::1' },
    { type: 'PTR', name: '_opcua-tcp._tcp.local', data: 'ghost._opcua-tcp._tcp.local' },
  ],
};
const SUBNETS = ['192.168.7.0/24'];

test('subnets contain exactly their addresses', (t) => {
  t.true(inSubnets('192.168.7.255', SUBNETS));
  t.false(inSubnets('192.168.8.1', SUBNETS));
  t.true(inSubnets('10.0.0.7', ['10.0.0.7/32']));
  t.false(inSubnets('10.0.0.8', ['10.0.0.7/32']));
  t.false(inSubnets('fe80::1', SUBNETS));
  t.false(inSubnets('192.168.7.1', ['192.168.7.0']), 'a malformed subnet contains nothing');
});

test('a browse becomes ip:port services inside the subnets; outside, unresolved and IPv6-only ones are dropped', (t) => {
  t.deepEqual(serviceTypes(TYPES), ['_http._tcp.local', '_opcua-tcp._tcp.local']);
  const heard = [...TYPES, ...Object.values(INSTANCES).flat()];
  t.deepEqual(mdnsServices(heard, SUBNETS), [
    { endpoint: '192.168.7.20:8080', instance: 'thermo-1._http._tcp.local', service: '_http._tcp.local' },
    { endpoint: '192.168.7.31:4840', instance: 'press-3._opcua-tcp._tcp.local', service: '_opcua-tcp._tcp.local' },
  ]);
  t.deepEqual(mdnsServices(heard, ['10.20.0.0/16']).map((s) => s.endpoint), ['10.20.0.9:80']);
  t.deepEqual(mdnsServices(heard, []), [], 'no subnets: nothing');
});

test('a browse asks only on this node\'s IPv4 addresses inside the subnets', (t) => {
  const interfaces = {
    lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
    eth0: [{ address: '192.168.7.5', family: 'IPv4', internal: false }, { address: 'fe80::5', family: 'IPv6', internal: false }],
    wlan0: [{ address: '10.1.1.5', family: 'IPv4', internal: false }],
    gone: undefined,
  };
  t.deepEqual(browseAddresses(interfaces, SUBNETS), ['192.168.7.5']);
  t.deepEqual(browseAddresses(interfaces, ['127.0.0.0/8']), [], 'loopback is not a network of devices');
});

/** A scripted multicast-dns: answers a question with the records recorded for it. */
class ScriptedMdns implements MdnsSocket {
  readonly asked: string[][] = [];
  destroyed = false;
  private listener: ((packet: { answers: readonly MdnsRecord[] }) => void) | undefined;

  on(event: string, listener: (arg: never) => void): this {
    if (event === 'response') this.listener = listener as (packet: { answers: readonly MdnsRecord[] }) => void;
    return this;
  }

  query(questions: Array<{ name: string; type: 'PTR' }>): void {
    this.asked.push(questions.map((q) => q.name));
    setImmediate(() => {
      for (const { name } of questions) this.listener?.({ answers: name === SERVICE_TYPES ? TYPES : INSTANCES[name] ?? [] });
    });
  }

  destroy(): void {
    this.destroyed = true;
  }
}

test('the browse asks for service types, then once for each type\'s instances, and closes its socket', async (t) => {
  const sockets = new Map<string, ScriptedMdns>();
  const records = await browseMdns(['192.168.7.5', '192.168.9.5'], 100, new AbortController().signal, (address) => {
    const socket = new ScriptedMdns();
    sockets.set(address, socket);
    return Promise.resolve(socket);
  });
  const socket = sockets.get('192.168.7.5');
  t.deepEqual(socket?.asked, [[SERVICE_TYPES], ['_http._tcp.local', '_opcua-tcp._tcp.local']]);
  t.true([...sockets.values()].every((s) => s.destroyed));
  t.is(records.length, 2 * (TYPES.length + Object.values(INSTANCES).flat().length), 'both interfaces heard everything');
  const failing = await browseMdns(['192.168.7.5'], 50, new AbortController().signal, () => Promise.reject(new Error('EADDRINUSE')));
  t.deepEqual(failing, [], 'an interface that cannot browse adds nothing');
});

test('shifud reports what mDNS advertises inside its subnets and no EdgeDevice declares, and creates nothing', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  await createDevice(kube, namespace, 'press-3', { protocol: 'OPCUA', address: 'opc.tcp://192.168.7.31:4840' });
  let browses = 0;
  const shifud = await startShifud(t, kube, fastConfig(uniqueName('shifud-mdns'), {
    deviceNamespace: namespace, discoverySubnets: SUBNETS, discoveryMdns: true, discoveryIntervalSeconds: 3600,
  }), { mdnsBrowse: () => { browses += 1; return Promise.resolve([...TYPES, ...Object.values(INSTANCES).flat()]); } });
  const scanner = shifud.scanner;
  if (scanner === undefined) return t.fail('mDNS alone makes a scanner');
  await waitFor('one scan', () => (scanner.stats.scans > 0 ? true : undefined));
  t.deepEqual(scanner.candidates, ['192.168.7.20:8080'], 'the declared press and the printer outside the subnet are not candidates');
  t.is(scanner.stats.attempts, 0, 'no ports configured: no TCP connects');
  t.is(browses, 1);
  const list = await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: EDGE_DEVICE.plural, namespace }) as { items: unknown[] };
  t.is(list.items.length, 1, 'no EdgeDevice created');
});
