// The LwM2M deviceShifu end to end over CoAP: the mock client registers with deviceShifu's LwM2M
// server, and instructions read, write and execute its resources; a device not registered is a
// 503 saying so; registration expiry and re-registration; Observe telemetry.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { startGateway } from './support/device-shifu.ts';
import { ENDPOINT, call, errorOf, lwm2mClient, lwm2mGateway, lwm2mInstructions } from './support/lwm2m.ts';

test('before the device registers every call is 503 naming the endpoint; after, reads answer its values', async (t) => {
  const gateway = await lwm2mGateway(t);
  const before = await call(gateway, 'temperature');
  t.is(before.status, 503);
  t.regex(errorOf(before), new RegExp(`endpoint name "${ENDPOINT}" has not registered with deviceShifu \\(listening on UDP port ${gateway.lwm2mPort}\\)`));
  const device = await lwm2mClient(t, gateway.lwm2mPort);
  t.truthy(device.location(), 'the server answered 2.01 with a location');
  t.deepEqual(await call(gateway, 'temperature'), { status: 200, body: '21.5' });
  t.deepEqual(await call(gateway, 'units'), { status: 200, body: 'Cel' });
  t.deepEqual(await call(gateway, 'manufacturer'), { status: 200, body: 'edgeshifu' });
  device.setTemperature(23.25);
  t.deepEqual(await call(gateway, 'temperature'), { status: 200, body: '23.25' });
});

test('PUT writes typed values, POST executes an executable resource and writes any other', async (t) => {
  const gateway = await lwm2mGateway(t);
  const device = await lwm2mClient(t, gateway.lwm2mPort);
  t.deepEqual(await call(gateway, 'light', { method: 'PUT', body: 'true' }), { status: 200, body: '1' });
  t.is(device.objects.value('/3311/0/5850'), '1');
  t.deepEqual(await call(gateway, 'light'), { status: 200, body: '1' });
  t.deepEqual(await call(gateway, 'dimmer', { method: 'POST', body: '75' }), { status: 200, body: '75' });
  t.is(device.objects.value('/3311/0/5851'), '75');
  t.deepEqual(await call(gateway, 'colour', { method: 'PUT', body: 'warm white' }), { status: 200, body: 'warm white' });
  device.setTemperature(30);
  device.setTemperature(18);
  t.deepEqual(await call(gateway, 'max_temperature'), { status: 200, body: '30' });
  t.deepEqual(await call(gateway, 'reset', { method: 'POST' }), { status: 200, body: 'executed' });
  t.deepEqual(await call(gateway, 'max_temperature'), { status: 200, body: '18' });
  t.deepEqual(await call(gateway, 'min_temperature'), { status: 200, body: '18' });
});

test('device answers map onto error kinds: 4.04 → 404, 4.05 → 403, 4.00 → 400, with the device\'s reason', async (t) => {
  const gateway = await lwm2mGateway(t);
  await lwm2mClient(t, gateway.lwm2mPort);
  const missing = await call(gateway, 'missing');
  t.is(missing.status, 404);
  t.regex(errorOf(missing), /answered 4\.04 Not Found to the read of \/3303\/0\/5800: the device has no such object/);
  const readOnly = await call(gateway, 'temperature', { method: 'PUT', body: '40' });
  t.is(readOnly.status, 403);
  t.regex(errorOf(readOnly), /4\.05 Method Not Allowed to the write of \/3303\/0\/5700/);
  const outOfRange = await call(gateway, 'dimmer', { method: 'PUT', body: '250' });
  t.is(outOfRange.status, 400);
  t.regex(errorOf(outOfRange), /4\.00 Bad Request .*device says: dimmer "250" is not 0-100/);
  t.deepEqual(await call(gateway, 'temperature'), { status: 200, body: '21.5' });
});

test('a client that deregisters is 503 again until it registers again; its Updates keep it registered past its lifetime', async (t) => {
  const gateway = await lwm2mGateway(t);
  const device = await lwm2mClient(t, gateway.lwm2mPort, { lifetimeSec: 2 });
  t.is((await call(gateway, 'temperature')).status, 200);
  await device.deregister();
  const gone = await call(gateway, 'temperature');
  t.is(gone.status, 503);
  t.regex(errorOf(gone), /has not registered/);
  t.is(await device.register(), '2.01');
  t.is((await call(gateway, 'temperature')).status, 200);
  // Updates keep it: well past the 2 s lifetime it still answers
  const updatesBefore = device.stats.updates;
  await waitFor('three Updates', () => device.stats.updates >= updatesBefore + 3 || undefined, { timeoutMs: 20_000 });
  t.is((await call(gateway, 'temperature')).status, 200);
});

test('without Updates the registration expires after its lifetime; an Update then gets 4.04 and the client registers again', async (t) => {
  const gateway = await lwm2mGateway(t);
  const device = await lwm2mClient(t, gateway.lwm2mPort, { lifetimeSec: 1 });
  t.is((await call(gateway, 'temperature')).status, 200);
  // a quiet device: no Updates, no answers; a call in flight when the lifetime ends fails at once
  device.mute(true);
  const expired = await waitFor('the registration to expire', async () => {
    const reply = await call(gateway, 'temperature');
    return reply.status === 503 && errorOf(reply).includes('has not registered') ? reply : undefined;
  }, { timeoutMs: 20_000 });
  t.regex(errorOf(expired), /endpoint name "leshan-client" has not registered/);
  t.true(gateway.logs.some((l) => l.includes('LwM2M registration ended') && l.includes('expired')), 'the expiry is logged');
  device.mute(false);
  await waitFor('the client to be served again', async () => ((await call(gateway, 'temperature')).status === 200) || undefined, { timeoutMs: 20_000 });
  t.true(device.stats.registers >= 2, 'it registered again');
});

test('DTLS settings are refused by name (no maintained library serves DTLS with PSK), and the PSK key is never logged', async (t) => {
  const gateway = await startGateway(t, {
    data: lwm2mInstructions(),
    spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: ENDPOINT, securityMode: 'DTLS', dtlsMode: 'PSK', pskIdentity: 'hint', pskKey: 'ABC123' } } },
  });
  await waitFor('the refusal in the log', () => gateway.logs.some((l) => l.includes('LwM2MSetting.securityMode DTLS is not supported')) || undefined, { timeoutMs: 10_000 });
  const reply = await call(gateway, 'temperature');
  t.is(reply.status, 502);
  t.false(gateway.logs.some((l) => l.includes('ABC123')), 'the PSK key is in the log');
  t.false(reply.body.includes('ABC123'));
});

test('the mock entrypoint runs the LwM2M client: it registers with the deviceShifu named by --lwm2m-server and deregisters on SIGTERM', async (t) => {
  const gateway = await lwm2mGateway(t);
  const child = spawn(process.execPath, ['--import=tsx', 'deviceshifu/mockdevice/main.ts', 'lwm2m', '--lwm2m-server', `127.0.0.1:${gateway.lwm2mPort}`], { env: { ...process.env, MOCKDEVICE_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => { child.kill('SIGTERM'); });
  const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  t.is((JSON.parse(String(first.value)) as { device: string }).device, 'lwm2m');
  t.deepEqual(await call(gateway, 'units'), { status: 200, body: 'Cel' });
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  t.is((await call(gateway, 'units')).status, 503, 'it deregistered on the way out');
});
