// A mock device going down and up flips its Reachable condition both ways; a device that accepts
// and hangs is reported as such; the node↔device link appears on both the EdgeDevice and the
// EdgeNode (the edgeMap draws it from there).
import test from 'ava';
import { Aedes } from 'aedes';
import { createServer } from 'node:net';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { MockDevice, createDevice, fastConfig, httpAnswer, readDevice, readEdgeNode, startShifud, waitReachable } from './harness.ts';

interface FlipCase {
  readonly protocol: string;
  readonly device: () => MockDevice;
  readonly spec: (address: string) => EdgeDeviceSpec;
  readonly upReason: string;
  readonly downReason: string;
}

const FLIPS: readonly FlipCase[] = [
  { protocol: 'TCP', device: () => new MockDevice(), spec: (address) => ({ protocol: 'TCP', address }), upReason: 'Reachable', downReason: 'ConnectionRefused' },
  { protocol: 'Socket', device: () => new MockDevice(), spec: (address) => ({ protocol: 'Socket', address, connection: 'Ethernet' }), upReason: 'Reachable', downReason: 'ConnectionRefused' },
  { protocol: 'HTTP', device: () => new MockDevice(httpAnswer('Healthy')),
    spec: (address) => ({ protocol: 'HTTP', address, customMetadata: { healthPath: '/health', healthExpect: 'Healthy' } }), upReason: 'Healthy', downReason: 'ConnectionRefused' },
];

for (const flip of FLIPS) {
  test(`a device speaking ${flip.protocol} going down and up flips Reachable both ways`, async (t) => {
    const kube = await sharedKube();
    await installCrds(kube);
    const namespace = await freshNamespace(t, kube, 'shifud');
    const node = uniqueName('shifud-flip');
    const device = await flip.device().up();
    t.teardown(() => device.down());
    await createDevice(kube, namespace, 'dev', flip.spec(device.address));
    const shifud = await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace }));

    const up = await waitReachable(kube, namespace, 'dev', { status: 'True', reason: flip.upReason });
    t.regex(up.message, new RegExp(`seen from node ${node}`));
    const linked = await readDevice(kube, namespace, 'dev');
    t.like(linked.status?.links?.find((l) => l.node === node), { node, type: 'Ethernet' });
    await waitFor('the EdgeNode to list the device', async () =>
      (await readEdgeNode(kube, node))?.status?.devices?.some((d) => d.name === 'dev' && d.namespace === namespace && d.linkType === 'Ethernet') ? true : undefined);

    await device.down();
    const down = await waitReachable(kube, namespace, 'dev', { status: 'False', reason: flip.downReason });
    t.regex(down.message, /refused the connection/);
    t.not(down.lastTransitionTime, undefined);
    t.is((await readDevice(kube, namespace, 'dev')).status?.links?.find((l) => l.node === node), undefined, 'no link while unseen');
    await waitFor('the EdgeNode to drop the device', async () =>
      (await readEdgeNode(kube, node))?.status?.devices?.some((d) => d.name === 'dev') === false ? true : undefined);

    await device.up();
    await waitReachable(kube, namespace, 'dev', { status: 'True', reason: flip.upReason });
    t.true(shifud.updater.stats.writes <= 4 + Math.ceil(shifud.discoverer.stats.probes / 1000), 'one write per transition, not per probe');
  });
}

test('a device that accepts and hangs is reported as not answering, within the probe deadline', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const hanging = await new MockDevice().up();
  t.teardown(() => hanging.down());
  await createDevice(kube, namespace, 'web', { protocol: 'HTTP', address: hanging.address, customMetadata: { healthPath: '/health' } });
  await createDevice(kube, namespace, 'broker', { protocol: 'MQTT', address: hanging.address });
  await startShifud(t, kube, fastConfig(uniqueName('shifud-hang'), { deviceNamespace: namespace, probeTimeoutMs: 300 }));

  const web = await waitReachable(kube, namespace, 'web', { status: 'False', reason: 'NoAnswer' });
  t.regex(web.message, /accepted the connection but did not answer within 300 ms/);
  const broker = await waitReachable(kube, namespace, 'broker', { status: 'False', reason: 'NoAnswer' });
  t.regex(broker.message, /accepted the connection but sent no CONNACK within 300 ms/);
});

test('an MQTT device is reachable when its broker answers, and mismatched when something else answers', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const broker = await Aedes.createBroker();
  const server = createServer(broker.handle);
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  t.teardown(async () => { await new Promise((resolve) => { server.close(resolve); broker.close(); }); });
  const port = (server.address() as { port: number }).port;
  const web = await new MockDevice(httpAnswer('not a broker')).up();
  t.teardown(() => web.down());
  await createDevice(kube, namespace, 'sensor', { protocol: 'MQTT', address: 'ignored:1', protocolSettings: { MQTTSetting: { MQTTServerAddress: `mqtt://127.0.0.1:${port}`, MQTTTopic: 't' } } });
  await createDevice(kube, namespace, 'impostor', { protocol: 'MQTT', address: web.address });
  await startShifud(t, kube, fastConfig(uniqueName('shifud-mqtt'), { deviceNamespace: namespace }));

  const sensor = await waitReachable(kube, namespace, 'sensor', { status: 'True', reason: 'Reachable' });
  t.regex(sensor.message, /answered \(CONNACK: accepted\)/);
  const impostor = await waitReachable(kube, namespace, 'impostor', { status: 'False', reason: 'WrongProtocol' });
  t.regex(impostor.message, /not with an MQTT CONNACK/);
});

test('an HTTP device answering without its expected identity is a mismatch', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const other = await new MockDevice(httpAnswer('{"model":"agv"}')).up();
  t.teardown(() => other.down());
  await createDevice(kube, namespace, 'thermometer', { protocol: 'HTTP', address: other.address, customMetadata: { healthPath: '/info', healthExpect: 'thermometer' } });
  await startShifud(t, kube, fastConfig(uniqueName('shifud-id'), { deviceNamespace: namespace }));
  const condition = await waitReachable(kube, namespace, 'thermometer', { status: 'False', reason: 'IdentityMismatch' });
  t.regex(condition.message, /without "thermometer" \(customMetadata.healthExpect\)/);
});
