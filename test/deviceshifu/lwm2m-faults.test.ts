// LwM2M bad input and faults: malformed resource paths, values that do not fit a resource's type,
// a client flooding notifications, a client that deregisters mid-call or goes silent, and one
// registering under the wrong endpoint name. Each is a clear error, nothing crashes, and the other
// instructions keep working.
import { createSocket } from 'node:dgram';
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import type { SubscriptionSink } from '../../deviceshifu/drivers/driver.ts';
import { buildDriver } from './support/drivers.ts';
import { startGateway } from './support/device-shifu.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { ENDPOINT, call, errorOf, lwm2mClient, lwm2mGateway, lwm2mInstructions } from './support/lwm2m.ts';

test('malformed resource paths and DataTypes are 400 naming the key and the fix; the other instructions work', async (t) => {
  const gateway = await lwm2mGateway(t);
  await lwm2mClient(t, gateway.lwm2mPort);
  const cases: Array<[string, RegExp]> = [
    ['bad_path', /instruction bad_path: protocolPropertyList: ObjectId "\/3303\/0" must name one resource as \/object\/instance\/resource/],
    ['bad_segment', /instance id "x" is not a number 0-65535/],
    ['bad_type', /DataType "Decimal" is not one of String, Integer, Float, Boolean, Time, Opaque, Objlnk, Execute/],
  ];
  for (const [name, message] of cases) {
    const reply = await call(gateway, name);
    t.is(reply.status, 400, name);
    t.regex(errorOf(reply), message);
  }
  t.true(gateway.logs.some((l) => l.includes('LwM2M instruction refused') && l.includes('bad_path')), 'refused at load, in the log');
  t.deepEqual(await call(gateway, 'temperature'), { status: 200, body: '21.5' });
});

test('values that do not fit the resource type are 400 naming the type, and never reach the device', async (t) => {
  const gateway = await lwm2mGateway(t);
  const device = await lwm2mClient(t, gateway.lwm2mPort);
  const requestsBefore = device.stats.requests;
  const cases: Array<[string, string, RegExp]> = [
    ['dimmer', 'bright', /\/3311\/0\/5851 is an Integer: "bright" is not a whole number/],
    ['dimmer', '1e999999999999999999999', /is not a whole number/],
    ['light', 'maybe', /\/3311\/0\/5850 is a Boolean: "maybe" is not true, false, 1 or 0/],
    ['min_range', 'cold', /\/3303\/0\/5603 is a Float: "cold" is not a finite number/],
    ['min_range', 'NaN', /is not a finite number/],
    ['reset', 'now', /execute arguments "now" must be digits/],
  ];
  for (const [name, body, message] of cases) {
    const reply = await call(gateway, name, { method: name === 'reset' ? 'POST' : 'PUT', body });
    t.is(reply.status, 400, `${name} ${body}`);
    t.regex(errorOf(reply), message);
  }
  const readExecutable = await call(gateway, 'reset');
  t.is(readExecutable.status, 400);
  t.regex(errorOf(readExecutable), /\/3303\/0\/5605 is executable and has no value to read: POST it to execute/);
  t.is(device.stats.requests, requestsBefore, 'the device saw none of them');
  t.deepEqual(await call(gateway, 'dimmer', { method: 'PUT', body: '42' }), { status: 200, body: '42' });
});

test('a client registering under another endpoint name is refused 4.03, and the 503 names it', async (t) => {
  const gateway = await lwm2mGateway(t);
  const stranger = await lwm2mClient(t, gateway.lwm2mPort, { endpointName: 'someone-else', register: false });
  t.is(await stranger.register(), '4.03');
  const reply = await call(gateway, 'temperature');
  t.is(reply.status, 503);
  t.regex(errorOf(reply), new RegExp(`endpoint name "${ENDPOINT}" has not registered.*endpoint "someone-else" from 127\\.0\\.0\\.1:${stranger.port} tried and was refused: set LwM2MSetting\\.endpointName`));
  await lwm2mClient(t, gateway.lwm2mPort);
  t.deepEqual(await call(gateway, 'temperature'), { status: 200, body: '21.5' });
});

test('a client that deregisters during a call ends the call at once with 503, not at its deadline', async (t) => {
  const gateway = await lwm2mGateway(t);
  const device = await lwm2mClient(t, gateway.lwm2mPort);
  device.mute(true);
  const pending = call(gateway, 'temperature?timeout=60');
  await waitFor('the read to reach the device', () => device.stats.ignored >= 1 || undefined, { timeoutMs: 10_000 });
  t.is(await device.deregister(), '2.02');
  const reply = await pending;
  t.is(reply.status, 503);
  t.regex(errorOf(reply), /LwM2M client "leshan-client" deregistered during the call/);
  device.mute(false);
  t.is(await device.register(), '2.01');
  t.deepEqual(await call(gateway, 'temperature'), { status: 200, body: '21.5' });
});

test('a registered client that stops answering is a 504 at the call\'s deadline; the others keep working once it answers', async (t) => {
  const gateway = await lwm2mGateway(t);
  const device = await lwm2mClient(t, gateway.lwm2mPort);
  device.mute(true);
  const silent = await call(gateway, 'temperature?timeout=1');
  t.is(silent.status, 504);
  t.regex(errorOf(silent), /did not answer temperature within 1 s/);
  device.mute(false);
  t.deepEqual(await call(gateway, 'units'), { status: 200, body: 'Cel' });
});

test('EnableObserve: GET answers the latest notification; a new registration observes again', async (t) => {
  const gateway = await lwm2mGateway(t);
  const device = await lwm2mClient(t, gateway.lwm2mPort);
  await waitFor('the observation', () => device.stats.observers >= 1 || undefined, { timeoutMs: 10_000 });
  device.setTemperature(26.5);
  await waitFor('the notified value', async () => (await call(gateway, 'observed_temperature')).body === '26.5' || undefined, { timeoutMs: 10_000 });
  await device.deregister();
  t.is((await call(gateway, 'observed_temperature')).status, 503, 'no stale value once the client is gone');
  await device.register();
  await waitFor('a second observation', () => device.stats.observers >= 2 || undefined, { timeoutMs: 10_000 });
  device.setTemperature(19);
  await waitFor('the value notified on the new registration', async () => (await call(gateway, 'observed_temperature')).body === '19' || undefined, { timeoutMs: 10_000 });
  t.pass();
});

test('a client flooding notifications reaches telemetry at most once per interval, newest value last; reads keep working', async (t) => {
  const port = await freePort();
  const built = await buildDriver(t, { spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: ENDPOINT } } }, data: lwm2mInstructions(), lwm2mListenPort: port });
  const device = await lwm2mClient(t, port);
  const values: string[] = [];
  const errors: string[] = [];
  const sink: SubscriptionSink = { value: (r) => { values.push((r.body as Buffer).toString()); }, alive: () => undefined, error: (e) => { errors.push(e.message); } };
  const stop = new AbortController();
  t.teardown(() => { stop.abort(); });
  const intervalMs = 300;
  const instruction = { name: 'temperature', readWrite: 'RW' as const, protocolProperties: { ObjectId: '/3303/0/5700' }, gatewayProperties: {} };
  built.driver.subscribe?.(instruction, intervalMs, sink, stop.signal);
  await waitFor('the first value', () => values.length >= 1 || undefined, { timeoutMs: 10_000 });
  const started = performance.now();
  const before = values.length;
  device.flood(3000);
  device.setTemperature(99.5);
  await waitFor('the newest value', () => values.at(-1) === '99.5' || undefined, { timeoutMs: 20_000 });
  const elapsed = performance.now() - started;
  const delivered = values.length - before;
  t.true(delivered <= Math.ceil(elapsed / intervalMs) + 1, `${delivered} values in ${Math.round(elapsed)} ms at one per ${intervalMs} ms`);
  t.true(delivered < 3000 / 10, 'the flood was coalesced');
  t.deepEqual(errors, []);
  t.deepEqual((await built.call('units')).body, 'Cel');
});

test('a UDP port taken at start is a 503 saying so, and the server takes the port once it frees', async (t) => {
  const port = await freePort();
  const squatter = createSocket('udp4');
  await new Promise<void>((resolve) => { squatter.bind(port, '127.0.0.1', resolve); });
  t.teardown(() => { try { squatter.close(); } catch { /* closed by the test */ } });
  const gateway = await startGateway(t, {
    data: lwm2mInstructions(), argv: ['--lwm2m-listen-port', String(port)],
    spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: ENDPOINT } } },
  });
  const taken = await call(gateway, 'temperature');
  t.is(taken.status, 503);
  t.regex(errorOf(taken), /not listening: its UDP port could not be bound/);
  squatter.close();
  await waitFor('the port bound', async () => (errorOf(await call(gateway, 'temperature')).includes(`listening on UDP port ${String(port)}`) || undefined), { timeoutMs: 60_000 });
  await lwm2mClient(t, port);
  t.deepEqual(await call(gateway, 'units'), { status: 200, body: 'Cel' });
  t.true(gateway.logs.some((l) => l.includes('could not bind its UDP port') && l.includes('trying again')), 'the wait is logged');
});
