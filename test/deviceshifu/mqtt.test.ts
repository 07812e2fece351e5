// The MQTT driver through the gateway, against aedes in-process and Debian's mosquitto: last
// message with its ISO time, publishing, controlMsgs gating with Shifu's MQTT mock device,
// credentials (EdgeDevice and Secret), a broker that is down, and a broker restart.
import test from 'ava';
import { connect, type MqttClient } from 'mqtt';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { startMqttDevice } from '../../deviceshifu/mockdevice/mqtt-device.ts';
import { makePki } from '../support/controlplane/pki.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { aedesBroker, mosquittoBroker, type TestBroker } from './support/brokers.ts';
import { startGateway } from './support/device-shifu.ts';

const INSTRUCTIONS = [
  'instructions:',
  '  get_topicmsg1:', '    readWrite: R', '    protocolPropertyList:', '      MQTTTopic: "/test/test1"',
  '  command:', '    readWrite: RW', '    protocolPropertyList:', '      MQTTTopic: "/test/test2"',
].join('\n');
const CONTROL = 'moving_the_device: "device_finish_moving"\n';

interface MqttReply { mqtt_message: string; mqtt_receive_timestamp: string }

async function client(t: ExecutionContext, url: string, options: { username?: string; password?: string } = {}): Promise<MqttClient> {
  const c = await connectAsync(url, options);
  t.teardown(() => c.endAsync(true));
  return c;
}

async function connectAsync(url: string, options: { username?: string; password?: string }): Promise<MqttClient> {
  const c = connect(url, { ...options, reconnectPeriod: 200 });
  c.on('error', () => undefined);
  await waitFor(`a test client connected to ${url}`, () => (c.connected ? true : undefined), { timeoutMs: 10_000 });
  return c;
}

const BROKERS: ReadonlyArray<[string, (t: ExecutionContext) => Promise<TestBroker>]> = [
  ['aedes', (t) => aedesBroker(t)],
  ['mosquitto', (t) => mosquittoBroker(t)],
];

for (const [kind, startBroker] of BROKERS) {
  test(`${kind}: GET returns the last message on the topic with its ISO receive time`, async (t) => {
    const broker = await startBroker(t);
    const gateway = await startGateway(t, { data: { instructions: INSTRUCTIONS }, spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}` } });
    await waitFor('the gateway to connect', async () => ((await gateway.get('/ready')).status === 200 ? true : undefined), { timeoutMs: 15_000 });
    const none = await waitFor('the topics to be subscribed', async () => {
      const r = await gateway.get('/get_topicmsg1');
      return r.status === 404 ? r : undefined;
    }, { timeoutMs: 10_000 });
    const { error } = await none.json() as { error: { kind: string; message: string; instruction: string } };
    t.like(error, { kind: 'not-found', instruction: 'get_topicmsg1' });
    t.regex(error.message, /^no message has arrived on topic \/test\/test1 yet \(subscribed since \d{4}-\d\d-\d\dT[\d:.]+Z\)/);
    const device = await client(t, broker.url);
    const before = Date.now();
    await waitFor('the message to arrive', async () => {
      await device.publishAsync('/test/test1', 'temperature 21', { qos: 1 });
      const reply = await gateway.get('/get_topicmsg1');
      return reply.status === 200 ? await reply.json() as MqttReply : undefined;
    }, { timeoutMs: 10_000 }).then((reply) => {
      t.is(reply.mqtt_message, 'temperature 21');
      t.regex(reply.mqtt_receive_timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      t.true(Date.parse(reply.mqtt_receive_timestamp) >= before - 1000);
    });
  });

  test(`${kind}: POST publishes the body at QoS 1 to the instruction's topic`, async (t) => {
    const broker = await startBroker(t);
    const gateway = await startGateway(t, { data: { instructions: INSTRUCTIONS }, spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}` } });
    const listener = await client(t, broker.url);
    const received: Array<{ topic: string; payload: string; qos: number }> = [];
    listener.on('message', (topic, payload, packet) => { received.push({ topic, payload: payload.toString(), qos: packet.qos }); });
    await listener.subscribeAsync('/test/test2', { qos: 1 });
    const reply = await waitFor('a publish through the gateway', async () => {
      const r = await gateway.get('/command', { method: 'POST', body: '{"speed": 3}' });
      return r.status === 200 ? r : undefined;
    }, { timeoutMs: 15_000 });
    t.deepEqual(await reply.json(), { mqtt_topic: '/test/test2', published_bytes: 12 });
    const message = await waitFor('the subscriber to receive it', () => received.find((m) => m.payload === '{"speed": 3}'), { timeoutMs: 10_000 });
    t.is(message.topic, '/test/test2');
    t.is(message.qos, 1);
  });

  test(`${kind}: the gateway survives a broker restart and resubscribes`, async (t) => {
    const broker = await startBroker(t);
    const gateway = await startGateway(t, { data: { instructions: INSTRUCTIONS }, spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}` } });
    await waitFor('the gateway to connect', async () => ((await gateway.get('/ready')).status === 200 ? true : undefined), { timeoutMs: 15_000 });
    await broker.stop();
    const down = await waitFor('a 502 while the broker is down', async () => {
      const r = await gateway.get('/command', { method: 'POST', body: 'x' });
      return r.status === 502 ? await r.json() as { error: { message: string } } : undefined;
    }, { timeoutMs: 15_000 });
    t.regex(down.error.message, /MQTT broker not connected/);
    t.is((await gateway.get('/health')).status, 200);
    await broker.start();
    const device = await client(t, broker.url);
    const reply = await waitFor('a message after the restart', async () => {
      await device.publishAsync('/test/test1', 'after restart', { qos: 1 });
      const r = await gateway.get('/get_topicmsg1');
      return r.status === 200 ? await r.json() as MqttReply : undefined;
    }, { timeoutMs: 30_000 });
    t.is(reply.mqtt_message, 'after restart');
  });
}

test('controlMsgs: a moving command blocks further POSTs with 409 until the device reports completion', async (t) => {
  const broker = await aedesBroker(t);
  const device = await startMqttDevice({ brokerUrl: broker.url, host: '127.0.0.1', port: 0, movingMs: 300, intervalMs: 60_000 });
  t.teardown(() => device.close());
  const gateway = await startGateway(t, { data: { instructions: INSTRUCTIONS, controlMsgs: CONTROL }, spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}` } });
  await waitFor('the gateway to connect', async () => ((await gateway.get('/ready')).status === 200 ? true : undefined), { timeoutMs: 15_000 });
  const start = await gateway.get('/command', { method: 'POST', body: 'moving_the_device' });
  t.is(start.status, 200);
  await start.arrayBuffer();
  const busy = await gateway.get('/command', { method: 'POST', body: 'moving_the_device' });
  t.is(busy.status, 409);
  const body = await busy.json() as { error: { kind: string; message: string } };
  t.is(body.error.kind, 'conflict');
  t.regex(body.error.message, /busy with "moving_the_device".*"device_finish_moving"/);
  const done = await waitFor('the device to finish moving', async () => {
    const r = await gateway.get('/get_topicmsg1');
    return r.status === 200 ? await r.json() as MqttReply : undefined;
  }, { timeoutMs: 10_000 });
  t.is(done.mqtt_message, 'device_finish_moving');
  const again = await gateway.get('/command', { method: 'POST', body: 'moving_the_device' });
  t.is(again.status, 200);
});

test('controlMsgs: a command whose completion never comes stops blocking after --control-msgs-timeout-ms', async (t) => {
  const broker = await aedesBroker(t);
  const gateway = await startGateway(t, {
    data: { instructions: INSTRUCTIONS, controlMsgs: CONTROL }, spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}` },
    argv: ['--control-msgs-timeout-ms', '1500'],
  });
  await waitFor('the gateway to connect', async () => ((await gateway.get('/ready')).status === 200 ? true : undefined), { timeoutMs: 15_000 });
  t.is((await gateway.get('/command', { method: 'POST', body: 'moving_the_device' })).status, 200);
  const busy = await gateway.get('/command', { method: 'POST', body: 'moving_the_device' });
  t.is(busy.status, 409, 'no device here ever reports completion');
  t.regex((await busy.json() as { error: { message: string } }).error.message, /at most until \d{4}-\d\d-\d\dT/);
  const freed = await waitFor('the gate to expire', async () => {
    const r = await gateway.get('/command', { method: 'POST', body: 'moving_the_device' });
    return r.status === 200 ? r : undefined;
  }, { timeoutMs: 15_000 });
  t.is(freed.status, 200);
  t.true(gateway.logs.some((l) => l.includes('no completion message in time') && l.includes('"command":"moving_the_device"')), 'the expiry is logged');
});

test('a broker that is down at start makes calls 502, and the gateway picks it up when it comes', async (t) => {
  const port = await freePort();
  const gateway = await startGateway(t, { data: { instructions: INSTRUCTIONS }, spec: { protocol: 'MQTT', address: `127.0.0.1:${port}` } });
  const reply = await gateway.get('/command', { method: 'POST', body: 'x' });
  t.is(reply.status, 502);
  const read = await gateway.get('/get_topicmsg1');
  t.is(read.status, 502);
  t.regex((await read.json() as { error: { message: string } }).error.message, /^device edgedevice-test: no message has arrived on topic \/test\/test1 yet: the MQTT broker has not been reached/);
  t.is((await gateway.get('/health')).status, 200);
  await aedesBroker(t, { port });
  const ok = await waitFor('the gateway to reach the late broker', async () => {
    const r = await gateway.get('/command', { method: 'POST', body: 'x' });
    return r.status === 200 ? r : undefined;
  }, { timeoutMs: 30_000 });
  t.is(ok.status, 200);
});

test('broker credentials come from the EdgeDevice, or from the Secret it names (which wins)', async (t) => {
  const broker = await aedesBroker(t, { auth: { username: 'plant', password: 's3cret' } });
  const inline = await startGateway(t, {
    data: { instructions: INSTRUCTIONS },
    spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}`, protocolSettings: { MQTTSetting: { MQTTServerUserName: 'plant', MQTTServerPassword: 's3cret' } } },
  });
  await waitFor('inline credentials to log in', async () => ((await inline.get('/ready')).status === 200 ? true : undefined), { timeoutMs: 15_000 });
  const dir = await mkdtemp(join(tmpdir(), 'secrets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'mqtt-login'));
  await writeFile(join(dir, 'mqtt-login', 'username'), 'plant');
  await writeFile(join(dir, 'mqtt-login', 'password'), 's3cret\n');
  const fromSecret = await startGateway(t, {
    data: { instructions: INSTRUCTIONS },
    spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}`, protocolSettings: { MQTTSetting: { MQTTServerSecret: 'mqtt-login', MQTTServerPassword: 'wrong' } } },
    argv: ['--secrets-dir', dir],
  });
  await waitFor('Secret credentials to log in', async () => ((await fromSecret.get('/ready')).status === 200 ? true : undefined), { timeoutMs: 15_000 });
  t.false(fromSecret.logs.some((l) => l.includes('s3cret')), 'the password is never logged');
  const wrong = await startGateway(t, {
    data: { instructions: INSTRUCTIONS },
    spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}`, protocolSettings: { MQTTSetting: { MQTTServerUserName: 'plant', MQTTServerPassword: 'nope' } } },
  });
  await waitFor('the wrong password to be refused', () => wrong.running.gateway.health.snapshot().probe, { timeoutMs: 15_000 });
  t.is((await wrong.get('/command', { method: 'POST', body: 'x' })).status, 502);
});

test('an mqtts:// broker is reached over TLS with the configured CA, and refused without it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mqtt-tls-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const pki = await makePki(dir);
  const broker = await aedesBroker(t, { tls: { certFile: pki.servingCert, keyFile: pki.servingKey } });
  const spec = { protocol: 'MQTT' as const, address: `mqtts://127.0.0.1:${broker.port}` };
  const trusted = await startGateway(t, { data: { instructions: INSTRUCTIONS }, spec, argv: ['--mqtt-ca-file', pki.caCert] });
  const published = await waitFor('a publish over TLS', async () => {
    const r = await trusted.get('/command', { method: 'POST', body: 'secure' });
    return r.status === 200 ? r : undefined;
  }, { timeoutMs: 15_000 });
  t.is(published.status, 200);
  const untrusted = await startGateway(t, { data: { instructions: INSTRUCTIONS }, spec });
  await waitFor('the untrusted gateway to probe', () => untrusted.running.gateway.health.snapshot().probe, { timeoutMs: 15_000 });
  t.is((await untrusted.get('/command', { method: 'POST', body: 'x' })).status, 502);
});
