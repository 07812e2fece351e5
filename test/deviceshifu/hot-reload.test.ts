// Hot reload (which Shifu's deviceShifu lacks, deviceshifu/README.md): a ConfigMap volume update (the kubelet's atomic `..data` swap) or
// a changed EdgeDevice takes effect without a restart; a broken update is refused and the running
// configuration stays.
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { startGateway } from './support/device-shifu.ts';
import { mockDevice, scriptedDevice } from './support/mocks.ts';

const ONE = { instructions: 'instructions:\n  read_value:\n    readWrite: R\n' };
const TWO = { instructions: 'instructions:\n  read_value:\n    readWrite: R\n  get_status:\n    readWrite: R\n' };

async function statusOf(get: (path: string) => Promise<Response>, path: string): Promise<number> {
  const response = await get(path);
  await response.arrayBuffer();
  return response.status;
}

test('a new instruction in the ConfigMap is served, and a removed one is gone, without a restart', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const gateway = await startGateway(t, { data: ONE, spec: { protocol: 'HTTP', address: thermometer.address } });
  const server = gateway.running.address.port;
  t.is(await statusOf(gateway.get, '/get_status'), 404);
  await gateway.config.update(TWO);
  await waitFor('get_status to be served', async () => ((await statusOf(gateway.get, '/get_status')) === 200 ? true : undefined), { timeoutMs: 10_000 });
  await gateway.config.update({ instructions: 'instructions:\n  get_status:\n    readWrite: R\n' });
  await waitFor('read_value to be gone', async () => ((await statusOf(gateway.get, '/read_value')) === 404 ? true : undefined), { timeoutMs: 10_000 });
  t.is(gateway.running.address.port, server);
  t.regex(await (await gateway.get('/metrics')).text(), /edgeshifu_deviceshifu_config_reloads_total\{source="configmap",result="ok"[^}]*\} [3-9]/);
});

test('a broken ConfigMap update is refused with the key and line, and the running configuration stays', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const gateway = await startGateway(t, { data: TWO, spec: { protocol: 'HTTP', address: thermometer.address } });
  await gateway.config.update({ instructions: 'instructions:\n  read_value:\n    readWrite: R\n  health:\n' });
  await waitFor('the refusal to be logged', () => gateway.logs.find((l) => l.includes('configuration rejected')), { timeoutMs: 10_000 }).then((line) => {
    t.regex(line, /instructions line 4: instruction \\"health\\" collides with the built-in path/);
  });
  t.is(await statusOf(gateway.get, '/get_status'), 200);
  t.is(await statusOf(gateway.get, '/read_value'), 200);
  await gateway.config.update(ONE);
  await waitFor('the fixed ConfigMap to apply', async () => ((await statusOf(gateway.get, '/get_status')) === 404 ? true : undefined), { timeoutMs: 10_000 });
});

test('a changed instruction timeout applies to the next request', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await startGateway(t, { data: { instructions: 'instructionSettings:\n  defaultTimeoutSeconds: 1\ninstructions:\n  slow:\n' }, spec: { protocol: 'HTTP', address: device.address } });
  t.regex(await (await gateway.get('/slow')).text(), /within 1 s/);
  await gateway.config.update({ instructions: 'instructionSettings:\n  defaultTimeoutSeconds: 2\ninstructions:\n  slow:\n' });
  await waitFor('the new timeout', async () => (/within 2 s/.test(await (await gateway.get('/slow')).text()) ? true : undefined), { timeoutMs: 10_000 });
  t.pass();
});

test('a changed EdgeDevice address sends the next request to the new device', async (t) => {
  const first = await scriptedDevice(t);
  const second = await scriptedDevice(t);
  const gateway = await startGateway(t, { data: { instructions: 'instructions:\n  echo:\n' }, spec: { protocol: 'HTTP', address: first.address } });
  t.is(await statusOf(gateway.get, '/echo'), 200);
  t.is(first.requests.length >= 1, true);
  await gateway.writeEdgeDevice({ protocol: 'HTTP', address: second.address });
  await waitFor('a request to reach the second device', async () => {
    await statusOf(gateway.get, '/echo');
    return second.requests.some((r) => r.url === '/echo') ? true : undefined;
  }, { timeoutMs: 10_000 });
  const before = first.requests.filter((r) => r.url === '/echo').length;
  await statusOf(gateway.get, '/echo');
  t.is(first.requests.filter((r) => r.url === '/echo').length, before);
});

test('an invalid EdgeDevice update is refused and the previous device keeps serving', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const gateway = await startGateway(t, { data: ONE, spec: { protocol: 'HTTP', address: thermometer.address } });
  await gateway.writeEdgeDevice({ protocol: 'Carrier-Pigeon' as 'HTTP', address: 'x' });
  await waitFor('the refusal', () => gateway.logs.find((l) => l.includes('EdgeDevice rejected')), { timeoutMs: 10_000 }).then((line) => {
    t.regex(line, /spec\.protocol must be one of/);
  });
  t.is(await statusOf(gateway.get, '/read_value'), 200);
});

test('a telemetry added to the ConfigMap starts polling', async (t) => {
  const device = await scriptedDevice(t);
  const gateway = await startGateway(t, { data: { instructions: 'instructions:\n  echo:\n' }, spec: { protocol: 'HTTP', address: device.address } });
  t.false(device.requests.some((r) => r.url === '/echo'));
  await gateway.config.update({ instructions: 'instructions:\n  echo:\n', telemetries: 'telemetries:\n  t:\n    properties:\n      instruction: echo\n      initialDelayMs: 0\n      intervalMs: 100\n' });
  await waitFor('telemetry polls', () => (device.requests.filter((r) => r.url === '/echo').length >= 2 ? true : undefined), { timeoutMs: 10_000 });
  t.pass();
});

test('a deviceShifu started with a broken ConfigMap stays up, says what is wrong, and serves once it is fixed', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const gateway = await startGateway(t, { data: { instructions: 'instructions:\n  read_value:\n    readWrite: READ\n' }, spec: { protocol: 'HTTP', address: thermometer.address } });
  t.is(await statusOf(gateway.get, '/health'), 200);
  t.is(await statusOf(gateway.get, '/read_value'), 404);
  t.true(gateway.logs.some((l) => l.includes('configuration rejected') && l.includes('instructions line 3: instructions.instructions.read_value.readWrite must be one of')));
  await gateway.config.update(ONE);
  await waitFor('the fixed ConfigMap to apply', async () => ((await statusOf(gateway.get, '/read_value')) === 200 ? true : undefined), { timeoutMs: 10_000 });
  t.pass();
});
