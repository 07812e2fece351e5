// Shifu's LwM2M interval settings against the mock client: pingIntervalSec checks a client not
// heard from and marks it unreachable while it does not answer; observeIntervalSec observes again
// what has gone silent (a client that lost its observers but kept its registration), and a client
// rebooted (stopped, started again on its port) is observed again when it registers.
import test, { type ExecutionContext } from 'ava';
import { isEdgeshifuError } from '../../shared/errors.ts';
import type { SubscriptionSink } from '../../deviceshifu/drivers/driver.ts';
import { startLwm2mDevice } from '../../deviceshifu/mockdevice/lwm2m-device.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { buildDriver, type BuiltDriver } from './support/drivers.ts';
import { startGateway } from './support/device-shifu.ts';
import { ENDPOINT, lwm2mClient, lwm2mInstructions } from './support/lwm2m.ts';

async function driverWith(t: ExecutionContext, settings: { pingIntervalSec?: number; observeIntervalSec?: number }): Promise<{ built: BuiltDriver; port: number }> {
  const port = await freePort();
  const built = await buildDriver(t, { spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: ENDPOINT, ...settings } } }, data: lwm2mInstructions(), lwm2mListenPort: port });
  return { built, port };
}

const probeResult = async (built: BuiltDriver): Promise<string> => {
  try {
    await built.driver.probe(AbortSignal.timeout(5000));
    return 'ok';
  } catch (err) {
    return isEdgeshifuError(err, 'unavailable') ? err.message : `other: ${(err as Error).message}`;
  }
};

function observedValues(t: ExecutionContext, built: BuiltDriver): string[] {
  const values: string[] = [];
  const sink: SubscriptionSink = { value: (r) => { values.push((r.body as Buffer).toString()); }, alive: () => undefined, error: () => undefined };
  const stop = new AbortController();
  t.teardown(() => { stop.abort(); });
  built.driver.subscribe?.({ name: 'temperature', readWrite: 'RW', protocolProperties: { ObjectId: '/3303/0/5700' }, gatewayProperties: {} }, 50, sink, stop.signal);
  return values;
}

test('pingIntervalSec: a registered client that stops answering is marked unreachable, with the reason, and reachable again once it answers', async (t) => {
  const { built, port } = await driverWith(t, { pingIntervalSec: 1 });
  const device = await lwm2mClient(t, port, { lifetimeSec: 60 });
  t.is(await probeResult(built), 'ok');
  const requestsBefore = device.stats.requests;
  await waitFor('a liveness check to reach the client', () => (device.stats.requests > requestsBefore ? true : undefined));
  t.is(await probeResult(built), 'ok', 'a client that answers its checks stays reachable');
  device.mute(true);
  const why = await waitFor('the client marked unreachable', async () => { const r = await probeResult(built); return r === 'ok' ? undefined : r; });
  t.regex(why, /LwM2M client "leshan-client" at 127\.0\.0\.1:\d+ is registered but did not answer a liveness check at .* \(pingIntervalSec 1\)/);
  t.true(built.logs.some((l) => l.includes('did not answer a liveness check')), 'logged');
  device.mute(false);
  await waitFor('reachable again', async () => ((await probeResult(built)) === 'ok' ? true : undefined));
  t.deepEqual(await built.call('units'), { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Cel' });
});

test('pingIntervalSec in a deviceShifu: the phase leaves Running while the client does not answer its checks, and comes back', async (t) => {
  const port = await freePort();
  const gateway = await startGateway(t, {
    data: lwm2mInstructions(), argv: ['--lwm2m-listen-port', String(port), '--probe-interval-ms', '300'],
    spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: ENDPOINT, pingIntervalSec: 1 } } },
  });
  const phase = (): string => gateway.running.gateway.currentPhase();
  t.not(phase(), 'Running', 'not Running before the client registers');
  const device = await lwm2mClient(t, port, { lifetimeSec: 60 });
  await waitFor('Running once registered', () => (phase() === 'Running' ? true : undefined));
  device.mute(true);
  await waitFor('no longer Running', () => (phase() === 'Running' ? undefined : true));
  t.is(phase(), 'Unknown', 'an unreachable device without telemetry is Unknown, as for every protocol');
  t.true(gateway.logs.some((l) => l.includes('did not answer a liveness check')));
  device.mute(false);
  await waitFor('Running again', () => (phase() === 'Running' ? true : undefined));
});

test('observeIntervalSec: an observation the client has silently dropped is made again, and its values flow again', async (t) => {
  const { built, port } = await driverWith(t, { observeIntervalSec: 1 });
  const device = await lwm2mClient(t, port);
  const values = observedValues(t, built);
  device.setTemperature(22.5);
  await waitFor('the first notified value', () => (values.includes('22.5') ? true : undefined));
  // the client forgets its observer but keeps its registration: nothing tells deviceShifu
  device.forgetObservers();
  device.setTemperature(31.5);
  await waitFor('the value after the observation is made again', () => (values.at(-1) === '31.5' ? true : undefined));
  device.setTemperature(32.5);
  await waitFor('notifications on the new observation', () => (values.at(-1) === '32.5' ? true : undefined));
  t.true(built.logs.some((l) => l.includes('observing again')), 'the re-observation is logged');
});

test('a client rebooted on its port registers again and is observed again, whatever the intervals', async (t) => {
  const { built, port } = await driverWith(t, { observeIntervalSec: 0 });
  const first = await startLwm2mDevice({ host: '127.0.0.1', port: 0, server: { host: '127.0.0.1', port }, endpointName: ENDPOINT, tickMs: 0 });
  const values = observedValues(t, built);
  first.setTemperature(20.5);
  await waitFor('a value before the reboot', () => (values.includes('20.5') ? true : undefined));
  const clientPort = first.port;
  await first.close();
  const rebooted = await startLwm2mDevice({ host: '127.0.0.1', port: clientPort, server: { host: '127.0.0.1', port }, endpointName: ENDPOINT, tickMs: 0 });
  t.teardown(() => rebooted.close());
  await waitFor('observed again after the reboot', () => (rebooted.stats.observers >= 1 ? true : undefined));
  rebooted.setTemperature(24.5);
  await waitFor('a value after the reboot', () => (values.at(-1) === '24.5' ? true : undefined));
  t.is((await built.call('units')).body, 'Cel');
});
