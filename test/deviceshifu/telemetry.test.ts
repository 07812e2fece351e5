// Telemetry: each telemetry on its own initialDelayMs/intervalMs, results pushed to HTTP (with the
// TelemetryService's credentials) or MQTT, failures counted and backed off, the gateway unharmed.
import test from 'ava';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { connect } from 'mqtt';
import { listen } from '../../deviceshifu/mockdevice/http-device.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { aedesBroker } from './support/brokers.ts';
import { startGateway, type TestGateway } from './support/device-shifu.ts';
import { mockDevice, scriptedDevice } from './support/mocks.ts';

function gaps(times: readonly number[]): number[] {
  return times.slice(1).map((at, i) => at - (times[i] ?? 0));
}

/** Mean time between polls as the device saw them, from the second on (the first one also opens the connection). */
function meanGap(times: readonly number[]): number {
  const steady = times.slice(1);
  return ((steady.at(-1) ?? 0) - (steady[0] ?? 0)) / Math.max(1, steady.length - 1);
}

async function metric(gateway: TestGateway, pattern: RegExp): Promise<number> {
  const text = await (await gateway.get('/metrics')).text();
  return Number(pattern.exec(text)?.[1] ?? 0);
}

/** Timers never fire early by more than this (a lower bound, not a duration limit). */
const SLACK_MS = 5;
/** Arrivals at the device jitter with the load of the machine: schedules are checked to within 10 %. */
const JITTER = 0.9;

test('each telemetry honours its own initialDelayMs and intervalMs', async (t) => {
  const device = await scriptedDevice(t);
  const started = performance.now();
  await startGateway(t, {
    data: {
      instructions: 'instructions:\n  pulse:\n    readWrite: R\n  tick:\n    readWrite: R\n',
      telemetries: [
        'telemetrySettings:', '  telemetryUpdateIntervalInMilliseconds: 5000',
        'telemetries:',
        '  fast:', '    properties:', '      instruction: pulse', '      initialDelayMs: 50', '      intervalMs: 100',
        '  slow:', '    properties:', '      instruction: tick', '      initialDelayMs: 600', '      intervalMs: 400',
      ].join('\n'),
    },
    spec: { protocol: 'HTTP', address: device.address },
  });
  const polls = (path: string): number[] => device.requests.filter((r) => r.url === `/${path}`).map((r) => r.at);
  await waitFor('four polls of the slow telemetry', () => (polls('tick').length >= 4 ? true : undefined), { timeoutMs: 20_000 });
  const fast = polls('pulse');
  const slow = polls('tick');
  t.true((slow[0] ?? 0) - started >= 600 - SLACK_MS, 'the slow telemetry waits its own initial delay');
  t.true((fast[0] ?? Infinity) < (slow[0] ?? 0), 'the fast telemetry starts first');
  t.true(meanGap(fast) >= 100 * JITTER, `fast gaps ${gaps(fast).join(', ')}`);
  t.true(meanGap(slow) >= 400 * JITTER, `slow gaps ${gaps(slow).join(', ')}`);
  const fastInSlowWindow = fast.filter((at) => at >= (slow[0] ?? 0) && at <= (slow.at(-1) ?? 0)).length;
  t.true(fastInSlowWindow >= 4, `${fastInSlowWindow} fast polls while the slow one polled ${slow.length} times`);
});

interface Received { headers: IncomingHttpHeaders; body: string }

async function pushReceiver(t: ExecutionContext): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() }); res.end('ok'); });
  });
  const running = await listen(server, 'receiver', '127.0.0.1', 0);
  t.teardown(() => running.close());
  return { url: `http://${running.address}/push`, received };
}

async function servicesFile(t: ExecutionContext, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'telemetryservices-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'services.yaml');
  await writeFile(path, text);
  return path;
}

const PUSH_TELEMETRIES = [
  'telemetrySettings:', '  defaultPushToServer: true', '  defaultTelemetryCollectionService: push-endpoint-1',
  'telemetries:', '  device_health:', '    properties:', '      instruction: read_value', '      initialDelayMs: 0', '      intervalMs: 100',
].join('\n');

test('results are pushed to the HTTP endpoint of the TelemetryService, with its credentials', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const receiver = await pushReceiver(t);
  const services = await servicesFile(t, [
    'apiVersion: shifu.edgenesis.io/v1alpha1', 'kind: TelemetryService', 'metadata:', '  name: push-endpoint-1', '  namespace: devices',
    'spec:', `  telemetrySeriveEndpoint: ${receiver.url}`, '  serviceSettings:', '    HTTPSetting:', '      username: collector', '      password: pa55',
  ].join('\n'));
  const gateway = await startGateway(t, {
    data: { instructions: 'instructions:\n  read_value:\n    readWrite: R\n', telemetries: PUSH_TELEMETRIES },
    spec: { protocol: 'HTTP', address: thermometer.address }, name: 'edgedevice-thermometer',
    argv: ['--telemetry-services-file', services],
  });
  const push = await waitFor('a push', () => receiver.received[0], { timeoutMs: 10_000 });
  t.regex(push.body, /^(1\d|2\d|30)$/);
  t.is(push.headers.authorization, `Basic ${Buffer.from('collector:pa55').toString('base64')}`);
  t.is(push.headers['x-edgeshifu-device'], 'edgedevice-thermometer');
  t.is(push.headers['x-edgeshifu-telemetry'], 'device_health');
  await waitFor('the push metric', async () => ((await metric(gateway, /edgeshifu_deviceshifu_telemetry_push_total\{[^}]*result="ok"[^}]*\} (\d+)/)) >= 1 ? true : undefined));
});

test('results are published to the MQTT topic of the TelemetryService', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const broker = await aedesBroker(t);
  const listener = connect(broker.url);
  t.teardown(() => listener.endAsync(true));
  const messages: string[] = [];
  listener.on('message', (_topic, payload) => messages.push(payload.toString()));
  await waitFor('the listener', () => (listener.connected ? true : undefined));
  await listener.subscribeAsync('/test/telemetry', { qos: 1 });
  const services = await servicesFile(t, [
    'kind: TelemetryService', 'metadata:', '  name: push-endpoint-1',
    'spec:', '  telemetrySeriveEndpoint: http://unused.invalid/mqtt', '  serviceSettings:', '    MQTTSetting:', `      MQTTServerAddress: 127.0.0.1:${broker.port}`, '      MQTTTopic: /test/telemetry',
  ].join('\n'));
  await startGateway(t, {
    data: { instructions: 'instructions:\n  read_value:\n    readWrite: R\n', telemetries: PUSH_TELEMETRIES },
    spec: { protocol: 'HTTP', address: thermometer.address }, argv: ['--telemetry-services-file', services],
  });
  const message = await waitFor('a published telemetry', () => messages[0], { timeoutMs: 15_000 });
  t.regex(message, /^(1\d|2\d|30)$/);
});

test('failed polls are counted and backed off, failed pushes counted, and the gateway keeps serving', async (t) => {
  const device = await scriptedDevice(t);
  const deadEndpoint = `http://127.0.0.1:${await freePort()}/push`;
  const gateway = await startGateway(t, {
    data: {
      instructions: 'instructions:\n  fail:\n    readWrite: R\n  echo:\n    readWrite: R\n',
      telemetries: [
        'telemetries:',
        '  broken:', '    properties:', '      instruction: fail', '      initialDelayMs: 0', '      intervalMs: 100',
        '  pushed:', '    properties:', '      instruction: echo', '      initialDelayMs: 0', '      intervalMs: 100',
        '      pushSettings:', '        pushToServer: true', `        telemetryCollectionService: ${deadEndpoint}`,
      ].join('\n'),
    },
    spec: { protocol: 'HTTP', address: device.address },
  });
  await waitFor('four failed polls', async () => ((await metric(gateway, /edgeshifu_deviceshifu_telemetry_results_total\{[^}]*telemetry="broken"[^}]*result="error"[^}]*\} (\d+)|edgeshifu_deviceshifu_telemetry_results_total\{[^}]*result="error"[^}]*telemetry="broken"[^}]*\} (\d+)/)) >= 4 ? true : undefined), { timeoutMs: 20_000 });
  const attempts = device.requests.filter((r) => r.url === '/fail').map((r) => r.at);
  t.true(meanGap(attempts) >= 150 * JITTER, `after a failure the wait grows beyond the interval: ${gaps(attempts).join(', ')}`);
  t.true(await metric(gateway, /edgeshifu_deviceshifu_telemetry_push_total\{[^}]*result="error"[^}]*\} (\d+)/) >= 1);
  t.true(gateway.logs.some((l) => l.includes('telemetry poll failed') && l.includes('answered 500')));
  t.is((await gateway.get('/echo')).status, 200);
  t.is(gateway.running.gateway.currentPhase(), 'Failed');
});
