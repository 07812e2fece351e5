// The shared per-node host (deviceshifu/host/host.ts) against real devices on loopback: each
// hosted device answers on its own port, and a device that hangs, is dead, floods its caller or
// cannot even start does not hold up its neighbours, nor does an LwM2M device that never registers
// or floods notifications; devices come and go without a restart.
import { createServer } from 'node:http';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../../shared/log.ts';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import type { Lwm2mRegistration } from '../../shared/crds/lwm2m-status.ts';
import { parseConfig } from '../../deviceshifu/config/parse.ts';
import { listen } from '../../deviceshifu/mockdevice/http-device.ts';
import type { Assignment } from '../../deviceshifu/host/assignment.ts';
import { NodeHost, type DeviceFeed } from '../../deviceshifu/host/host.ts';
import { DeviceShifu } from '../../deviceshifu/device-shifu.ts';
import { createSocket } from 'node:dgram';
import { freePorts } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { mockDevice, scriptedDevice } from './support/mocks.ts';
import { errorOf, lwm2mClient, lwm2mInstructions } from './support/lwm2m.ts';

const INSTRUCTIONS = ['instructions:', '  read_value:', '    readWrite: R', '  slow:', '    readWrite: R', '  flood:', '    readWrite: R', '  echo:', '    readWrite: R'].join('\n');

interface TestDevice {
  readonly spec?: EdgeDeviceSpec;
  /** A feed that fails, as an unreadable ConfigMap would. */
  readonly broken?: string;
  /** The ConfigMap's data (default: the HTTP instructions). */
  readonly data?: Record<string, string>;
  /** Every status.lwm2m the device's driver reported, in order. */
  readonly statuses?: Array<Lwm2mRegistration | null>;
}

function staticFeed(device: TestDevice, assignment: Assignment): DeviceFeed {
  return {
    sources: {
      secrets: () => Promise.resolve({}), services: () => Promise.resolve(undefined),
      ...(device.statuses === undefined ? {} : { reportStatus: (status: { readonly lwm2m: Lwm2mRegistration | null }) => { device.statuses?.push(status.lwm2m); } }),
    },
    follow: async (gateway) => {
      if (device.broken !== undefined) throw new Error(device.broken);
      await gateway.update({ config: parseConfig(device.data ?? { instructions: INSTRUCTIONS }), device: { name: assignment.name, namespace: assignment.namespace, spec: device.spec ?? { protocol: 'HTTP' } } });
    },
  };
}

function startHost(t: ExecutionContext, devices: Map<string, TestDevice>): NodeHost {
  const host = new NodeHost({
    bindAddress: '127.0.0.1', bodyLimitBytes: 1 << 20, readyWindowMs: 30_000, probeIntervalMs: 60_000, statusIntervalMs: 0,
    driver: { controlMsgsTimeoutMs: 60_000 }, logger: createLogger('test', { level: 'silent' }), retryMs: 20,
    feedFor: (a) => staticFeed(devices.get(a.name) ?? {}, a),
  });
  t.teardown(() => host.stop());
  return host;
}

const assignment = (name: string, port: number): Assignment => ({ name, namespace: 'devices', port, configMap: `${name}-config` });
const url = (port: number, path: string): string => `http://127.0.0.1:${String(port)}${path}`;

/** An HTTP device whose /flood never ends: it writes as fast as its caller reads. */
async function floodingDevice(t: ExecutionContext): Promise<string> {
  const chunk = Buffer.alloc(64 * 1024, 7);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const pump = (): void => { while (!res.destroyed && res.write(chunk)); };
    res.on('drain', pump);
    pump();
  });
  const running = await listen(server, 'flooding', '127.0.0.1', 0);
  t.teardown(() => running.close());
  return running.address;
}

test('a hung, a dead, a flooding and a broken device do not hold up their neighbour on the same host', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const scripted = await scriptedDevice(t);
  const flood = await floodingDevice(t);
  const [pThermo, pHung, pDead, pFlood, pBroken, deadPort] = await freePorts(6) as [number, number, number, number, number, number];
  const devices = new Map<string, TestDevice>([
    ['thermo', { spec: { protocol: 'HTTP', address: thermometer.address } }],
    ['hung', { spec: { protocol: 'HTTP', address: scripted.address } }],
    ['dead', { spec: { protocol: 'HTTP', address: `127.0.0.1:${String(deadPort)}` } }],
    ['flood', { spec: { protocol: 'HTTP', address: flood } }],
    ['broken', { broken: 'ConfigMap devices/broken-config cannot be read' }],
  ]);
  const host = startHost(t, devices);
  host.assign([assignment('thermo', pThermo), assignment('hung', pHung), assignment('dead', pDead), assignment('flood', pFlood), assignment('broken', pBroken)]);
  await host.settled();

  // the hung call is under way at the device, and stays pending
  let hungSettled = false;
  const hung = fetch(url(pHung, '/slow?timeout=0')).finally(() => { hungSettled = true; });
  await waitFor('the hung call to reach its device', () => (scripted.requests.some((r) => r.url.startsWith('/slow')) ? true : undefined));
  // the flooding device's caller has its reply streaming, and reads it slowly (not at all)
  const flooding = await fetch(url(pFlood, '/flood?timeout=0'));
  t.is(flooding.status, 200);

  for (let i = 0; i < 20; i += 1) {
    const reply = await fetch(url(pThermo, '/read_value'));
    t.is(reply.status, 200, 'the neighbour answers');
    t.regex(await reply.text(), /^\d+$/);
  }
  t.false(hungSettled, 'the hung device\'s call is still pending while its neighbour answered 20 times');
  const dead = await fetch(url(pDead, '/read_value'));
  t.is(dead.status, 502, 'the dead device answers 502 for itself');
  await dead.arrayBuffer();
  t.is(host.get('broken', 'devices')?.gateway, undefined, 'the broken device has no port open');
  t.regex(host.get('broken', 'devices')?.problem ?? '', /cannot be read/);
  t.is((await fetch(url(pThermo, '/ready'))).status, 200, 'the neighbour is ready');
  t.is((await fetch(url(pHung, '/health'))).status, 200, 'each device keeps its own /health');
  const metrics = await (await fetch(url(pThermo, '/metrics'))).text();
  t.regex(metrics, /edgeshifu_deviceshifu_requests_total\{[^}]*instruction="read_value"[^}]*status="200"[^}]*\} 20/, 'each device keeps its own metrics');
  t.notRegex(metrics, /instruction="slow"/, 'no other device\'s requests in them');

  await flooding.body?.cancel();
  host.assign([assignment('thermo', pThermo)]);
  await t.throwsAsync(hung, undefined, 'the hung call ends when its device is removed');
});

const lwm2mSpec = (endpointName: string): EdgeDeviceSpec => ({ protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName } } });

test('an LwM2M device that never registers and one whose client floods notifications do not hold up their neighbours; each reports its own registration', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const [pThermo, pMeter, pSilent, pFlood] = await freePorts(4) as [number, number, number, number];
  const statuses = { meter: [] as Array<Lwm2mRegistration | null>, silent: [] as Array<Lwm2mRegistration | null>, flood: [] as Array<Lwm2mRegistration | null> };
  const devices = new Map<string, TestDevice>([
    ['thermo', { spec: { protocol: 'HTTP', address: thermometer.address } }],
    ['meter', { spec: lwm2mSpec('meter'), data: lwm2mInstructions(), statuses: statuses.meter }],
    ['silent', { spec: lwm2mSpec('silent'), data: lwm2mInstructions(), statuses: statuses.silent }],
    ['flood', { spec: lwm2mSpec('flood'), data: lwm2mInstructions(), statuses: statuses.flood }],
  ]);
  const host = startHost(t, devices);
  host.assign([assignment('thermo', pThermo), assignment('meter', pMeter), assignment('silent', pSilent), assignment('flood', pFlood)]);
  await host.settled();
  // each LwM2M device's server listens on UDP at its own port's number
  const meter = await lwm2mClient(t, pMeter, { endpointName: 'meter' });
  const flooder = await lwm2mClient(t, pFlood, { endpointName: 'flood' });
  meter.setTemperature(11.5);
  flooder.setTemperature(33.5);
  await waitFor('the flooding client observed (EnableObserve)', () => (flooder.stats.observers >= 1 ? true : undefined));
  t.deepEqual(statuses.meter.map((s) => s?.endpointName), ['meter'], 'meter\'s registration reported for meter only');
  t.deepEqual(statuses.flood.map((s) => s?.endpointName), ['flood']);
  t.is(statuses.meter[0]?.address, meter.address, 'where the meter registered from');
  t.deepEqual(statuses.silent, [], 'nothing reported for a device that never registered');

  // the flood goes on, a burst every turn of the event loop, while the neighbours are called
  let flooding = true;
  let bursts = 0;
  const burst = (): void => { if (!flooding) return; flooder.flood(200); bursts += 1; setImmediate(burst); };
  burst();
  const observersBefore = flooder.stats.observers;
  for (let i = 0; i < 20; i += 1) {
    const reply = await fetch(url(pThermo, '/read_value'));
    t.is(reply.status, 200, 'the HTTP neighbour answers');
    await reply.arrayBuffer();
    const read = await fetch(url(pMeter, '/temperature'));
    t.is(read.status, 200, 'the LwM2M neighbour answers');
    t.is(await read.text(), '11.5', 'from its own client');
  }
  const silent = await fetch(url(pSilent, '/temperature'));
  t.is(silent.status, 503, 'the device that never registered answers 503 for itself');
  const why = errorOf({ body: await silent.text() });
  t.regex(why, /endpoint name "silent" has not registered with deviceShifu/);
  t.true(why.includes(`listening on UDP port ${String(pSilent)}`), 'on its own UDP port');
  t.true(bursts >= 20, `the flood went on meanwhile (${String(bursts)} bursts of 200)`);
  flooding = false;
  t.is(flooder.stats.observers, observersBefore, 'the flooding client is still observed');
  flooder.setTemperature(44.5);
  await waitFor('the flooding device\'s own latest value', async () => ((await (await fetch(url(pFlood, '/observed_temperature'))).text()) === '44.5' ? true : undefined));
  t.is(await (await fetch(url(pMeter, '/temperature'))).text(), '11.5', 'the neighbour\'s value is its own');
  t.true(meter.stats.requests >= 20, 'the meter\'s client answered its reads');

  // a device removed ends its own registration record, and only its own
  host.assign([assignment('thermo', pThermo), assignment('meter', pMeter), assignment('silent', pSilent)]);
  await waitFor('flood\'s registration cleared', () => (statuses.flood.at(-1) === null ? true : undefined));
  t.deepEqual(statuses.meter.map((s) => s?.endpointName), ['meter'], 'meter\'s record untouched');
  t.is((await fetch(url(pMeter, '/temperature'))).status, 200);
});

test('devices are added, moved to another port and removed while the others keep their gateway', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const [pA, pB, pB2] = await freePorts(3) as [number, number, number];
  const spec: EdgeDeviceSpec = { protocol: 'HTTP', address: thermometer.address };
  const host = startHost(t, new Map([['a', { spec }], ['b', { spec }]]));
  host.assign([assignment('a', pA)]);
  await host.settled();
  const gatewayA = host.get('a', 'devices')?.gateway;
  t.not(gatewayA, undefined);
  t.is((await fetch(url(pA, '/read_value'))).status, 200);

  host.assign([assignment('a', pA), assignment('b', pB)]);
  await host.settled();
  t.is((await fetch(url(pB, '/read_value'))).status, 200, 'b added');
  t.is(host.get('a', 'devices')?.gateway, gatewayA, 'a untouched');

  host.assign([assignment('a', pA), assignment('b', pB2)]);
  await host.settled();
  t.is((await fetch(url(pB2, '/read_value'))).status, 200, 'b on its new port');
  await t.throwsAsync(fetch(url(pB, '/read_value')), undefined, 'b\'s old port is closed');
  t.is(host.get('a', 'devices')?.gateway, gatewayA, 'a still untouched');

  host.assign([assignment('b', pB2)]);
  await host.settled();
  await t.throwsAsync(fetch(url(pA, '/read_value')), undefined, 'a removed: its port is closed');
  t.is((await fetch(url(pB2, '/read_value'))).status, 200, 'b still serves');
});

test('a device whose port is taken is hosted once the port frees up, and the others are served meanwhile', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const [pA, pTaken] = await freePorts(2) as [number, number];
  const squatter = await listen(createServer(), 'squatter', '127.0.0.1', pTaken);
  const spec: EdgeDeviceSpec = { protocol: 'HTTP', address: thermometer.address };
  const host = startHost(t, new Map([['a', { spec }], ['b', { spec }]]));
  host.assign([assignment('a', pA), assignment('b', pTaken)]);
  await waitFor('b to report its port taken', () => (host.get('b', 'devices')?.problem === undefined ? undefined : true));
  t.regex(host.get('b', 'devices')?.problem ?? '', /EADDRINUSE/);
  t.is((await fetch(url(pA, '/read_value'))).status, 200, 'a serves meanwhile');
  await squatter.close();
  await waitFor('b to be hosted', () => host.get('b', 'devices')?.gateway);
  t.is((await fetch(url(pTaken, '/read_value'))).status, 200);
});

test('a device stopped while its driver is still starting leaves nothing running: its LwM2M port is free at once', async (t) => {
  const [port] = await freePorts(1) as [number];
  for (let round = 0; round < 5; round += 1) {
    const gateway = new DeviceShifu({
      port, bindAddress: '127.0.0.1', bodyLimitBytes: 1 << 20, readyWindowMs: 30_000, probeIntervalMs: 60_000, statusIntervalMs: 0,
      driver: { controlMsgsTimeoutMs: 60_000, bindAddress: '127.0.0.1', lwm2mListenPort: port }, logger: createLogger('test', { level: 'silent' }),
      secrets: () => Promise.resolve({}), services: () => Promise.resolve(undefined),
    });
    // as a feed does when its attempt fails: the update is under way, not awaited, when stop comes
    void gateway.update({ config: parseConfig(lwm2mInstructions()), device: { name: 'meter', namespace: 'devices', spec: lwm2mSpec('meter') } });
    await gateway.stop();
    // whatever was under way has landed by the time a later update resolves (updates run in order)
    await gateway.update({});
    t.is(gateway.currentDriver(), undefined, `round ${String(round)}: no driver after stop`);
    const probe = createSocket('udp4');
    await new Promise<void>((resolve, reject) => { probe.once('error', reject); probe.bind(port, '127.0.0.1', resolve); });
    await new Promise<void>((resolve) => { probe.close(resolve); });
  }
  t.pass('the UDP port was free after every stop');
});
