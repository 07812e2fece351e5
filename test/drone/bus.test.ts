import test, { type ExecutionContext } from 'ava';
import mqtt from 'mqtt';
import { Registry } from '../../shared/prometheus.ts';
import { samples } from '../support/metric-samples.ts';
import { busMetrics, type BusMetrics } from '../../shared/bus/metrics.ts';
import { broadcastTopic, directTopic, localTopic } from '../../shared/bus/topics.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { asDroneBus, droneBusClient } from '../../controller/drone/bus.ts';
import { DroneAgent } from '../../controller/drone/agent.ts';
import { DEFAULT_TIMERS } from '../../controller/drone/agent-core.ts';
import { droneCodec, type DroneMessage } from '../../controller/drone/messages/index.ts';
import type { BusClient } from '../../shared/bus/client.ts';
import { waitFor } from '../support/wait.ts';
import { password, startAedes, startMosquitto, user } from './support/brokers.ts';

const CLUSTERS = ['alpha', 'beta', 'gamma'];

interface BrokerUnderTest { readonly url: string }

const brokers: Array<{ name: string; start: (t: ExecutionContext) => Promise<BrokerUnderTest> }> = [
  {
    name: 'the embedded aedes broker',
    start: async (t) => {
      const b = await startAedes('alpha', CLUSTERS);
      t.teardown(() => b.broker.stop());
      return b;
    },
  },
  {
    name: 'Mosquitto',
    start: async (t) => {
      const m = await startMosquitto({ owner: 'alpha', users: CLUSTERS.map(user) });
      t.teardown(() => m.stop());
      return m;
    },
  },
];

const codec = droneCodec();

async function client(t: ExecutionContext, url: string, cluster: string, metrics?: BusMetrics): Promise<BusClient<DroneMessage>> {
  const c = droneBusClient({ url, cluster, username: cluster, password: password(cluster), ...(metrics === undefined ? {} : { metrics }) }, codec);
  t.teardown(() => c.stop());
  await c.start();
  return c;
}

const advert = { kind: 'slice-advert' as const, offered: { cpu: 1000, memory: 1024 }, seq: 1, ttlMs: 15_000 };

for (const b of brokers) {

  test(`${b.name} refuses a cluster with the wrong password`, async (t) => {
    const broker = await b.start(t);
    const c = droneBusClient({ url: broker.url, cluster: 'beta', username: 'beta', password: 'not-it', backoff: { initialMs: 50, maxMs: 100 } }, codec);
    t.teardown(() => c.stop());
    const err = await t.throwsAsync(c.start());
    t.true(isEdgeshifuError(err, 'forbidden'), String(err));
    t.false(JSON.stringify(err).includes('not-it'), 'the password is not in the error');
  });

  test(`${b.name} delivers a cluster's broadcast to others, but not what it publishes under another cluster's id`, async (t) => {
    const broker = await b.start(t);
    const alpha = await client(t, broker.url, 'alpha');
    const seen: DroneMessage[] = [];
    await alpha.subscribe(['edgeshifu/v1/+/fed/#'], (m) => seen.push(m));
    const beta = await client(t, broker.url, 'beta');
    await beta.publish(broadcastTopic('beta', 'slice-advert'), advert);
    await waitFor('beta\'s advert at alpha', () => (seen.some((m) => m.sender === 'beta') ? true : undefined), { timeoutMs: 5000 });
    const forger = mqtt.connect(broker.url, { username: 'gamma', password: password('gamma'), reconnectPeriod: 0 });
    t.teardown(() => forger.endAsync(true));
    await new Promise<void>((resolve) => forger.once('connect', () => { resolve(); }));
    const forged = { ...advert, v: 1, id: 'forged-0000000001', sender: 'beta', timestamp: Date.now(), hops: 0 };
    forger.publish(broadcastTopic('beta', 'slice-advert'), JSON.stringify(forged), { qos: 0 });
    await beta.publish(broadcastTopic('beta', 'slice-advert'), { ...advert, seq: 2 });
    await waitFor('beta\'s second advert', () => (seen.some((m) => m.kind === 'slice-advert' && m.seq === 2) ? true : undefined), { timeoutMs: 5000 });
    t.false(seen.some((m) => m.id === 'forged-0000000001'), 'gamma could not speak as beta');
  });

  test(`${b.name} never gives a cluster what is addressed to another cluster`, async (t) => {
    const broker = await b.start(t);
    const gamma = await client(t, broker.url, 'gamma');
    const got: DroneMessage[] = [];
    // aedes refuses the subscription; Mosquitto grants it but its ACL withholds every message.
    const refused = await gamma.subscribe([`edgeshifu/v1/+/to/beta/#`], (m) => got.push(m)).then(() => false, (err: unknown) => isEdgeshifuError(err, 'forbidden'));
    t.is(refused, b.name !== 'Mosquitto');
    await gamma.subscribe([`edgeshifu/v1/+/to/gamma/#`], (m) => got.push(m));
    const alpha = await client(t, broker.url, 'alpha');
    await alpha.publish(directTopic('alpha', 'beta', 'acknowledge'), { kind: 'acknowledge', to: 'beta', typeAck: 'ADD_ACK', app: 'web', component: 'api' });
    await alpha.publish(directTopic('alpha', 'gamma', 'acknowledge'), { kind: 'acknowledge', to: 'gamma', typeAck: 'ADD_ACK', app: 'web', component: 'db' });
    await waitFor('the message for gamma', () => (got.some((m) => m.kind === 'acknowledge' && m.component === 'db') ? true : undefined), { timeoutMs: 5000 });
    t.deepEqual(got.map((m) => (m as { to?: string }).to), ['gamma']);
  });

  test(`${b.name}: a directed message reaches its recipient`, async (t) => {
    const broker = await b.start(t);
    const beta = await client(t, broker.url, 'beta');
    const got: DroneMessage[] = [];
    await beta.subscribe(['edgeshifu/v1/+/to/beta/#'], (m) => got.push(m));
    const gamma = await client(t, broker.url, 'gamma');
    await gamma.publish(directTopic('gamma', 'beta', 'acknowledge'), { kind: 'acknowledge', to: 'beta', typeAck: 'ADD_ACK', app: 'web', component: 'api' });
    const [m] = await waitFor('the acknowledge', () => (got.length > 0 ? got : undefined), { timeoutMs: 5000 });
    t.like(m, { kind: 'acknowledge', sender: 'gamma', to: 'beta', hops: 0 });
  });
}

const garbage: Array<{ what: string; topic: string; payload: string; reason: string }> = [
  { what: 'a payload that is not JSON', topic: broadcastTopic('beta', 'slice-advert'), payload: '{not json', reason: 'not-json' },
  { what: 'an unknown kind', topic: broadcastTopic('beta', 'gossip'), payload: JSON.stringify({ kind: 'gossip', v: 1, id: 'x-00000001', sender: 'beta', timestamp: 1, hops: 0 }), reason: 'unknown-kind' },
  { what: 'a message that breaks its schema', topic: broadcastTopic('beta', 'slice-advert'), payload: JSON.stringify({ ...advert, offered: { cpu: -5 }, v: 1, id: 'x-00000002', sender: 'beta', timestamp: 1, hops: 0 }), reason: 'invalid' },
  { what: 'a sender that is not the topic\'s cluster', topic: broadcastTopic('beta', 'slice-advert'), payload: JSON.stringify({ ...advert, v: 1, id: 'x-00000003', sender: 'gamma', timestamp: 1, hops: 0 }), reason: 'wrong-sender' },
  { what: 'a directed message on another recipient\'s topic', topic: directTopic('beta', 'alpha', 'acknowledge'), payload: JSON.stringify({ kind: 'acknowledge', to: 'gamma', typeAck: 'ADD_ACK', app: 'a', component: 'c', v: 1, id: 'x-00000004', sender: 'beta', timestamp: 1, hops: 0 }), reason: 'wrong-recipient' },
];

test('invalid messages are dropped and counted by reason, and valid ones still get through', async (t) => {
  const { broker, url } = await startAedes('alpha', CLUSTERS);
  t.teardown(() => broker.stop());
  const registry = new Registry();
  const alpha = await client(t, url, 'alpha', busMetrics(registry));
  const seen: DroneMessage[] = [];
  await alpha.subscribe(['edgeshifu/v1/#'], (m) => seen.push(m));
  const raw = await mqtt.connectAsync(url, { username: 'beta', password: password('beta') });
  t.teardown(() => raw.endAsync(true));
  for (const g of garbage) await raw.publishAsync(g.topic, g.payload, { qos: 1 });
  const valid = JSON.stringify({ ...advert, v: 1, id: 'beta-valid-000001', sender: 'beta', timestamp: 1, hops: 0 });
  await raw.publishAsync(broadcastTopic('beta', 'slice-advert'), valid, { qos: 1 });
  await raw.publishAsync(broadcastTopic('beta', 'slice-advert'), valid, { qos: 1 });
  await waitFor('the valid advert', () => (seen.some((m) => m.id === 'beta-valid-000001') ? true : undefined), { timeoutMs: 5000 });
  const dropped = await waitFor('the duplicate to be counted', () => {
    const values = samples(registry, 'edgeshifu_bus_messages_dropped_total');
    const byReason = Object.fromEntries(values.map((v) => [String(v.labels.reason), v.value]));
    return byReason.duplicate === 1 ? byReason : undefined;
  }, { timeoutMs: 5000 });
  for (const g of garbage) t.is(dropped[g.reason], 1, g.what);
  t.is(seen.length, 1, 'only the valid message, once');
});

test('the resources daemon\'s figures reach the agent on the cluster\'s local topic, and its slice advert follows', async (t) => {
  const { broker, url } = await startAedes('alpha', CLUSTERS);
  t.teardown(() => broker.stop());
  const agentBus = droneBusClient({ url, cluster: 'alpha', username: 'alpha', password: password('alpha'), ignoreOwn: true }, codec);
  t.teardown(() => agentBus.stop());
  await agentBus.start();
  const agent = new DroneAgent({ config: { cluster: 'alpha', mode: 'open', scalePercent: 100, weights: new Map(), ...DEFAULT_TIMERS }, free: { cpu: 1000, memory: 1000 }, bus: asDroneBus(agentBus) });
  t.teardown(() => { agent.stop(); });
  await agent.start();
  const beta = await client(t, url, 'beta');
  const adverts: DroneMessage[] = [];
  await beta.subscribe(['edgeshifu/v1/+/fed/#'], (m) => { if (m.kind === 'slice-advert') adverts.push(m); });
  const daemon = await client(t, url, 'alpha');
  await daemon.publish(localTopic('alpha', 'resources'), { kind: 'resources', free: { cpu: 6000, memory: 4096 }, scalePercent: 50 });
  const advert = await waitFor('the new slice advert', () => adverts.find((m) => m.kind === 'slice-advert' && m.offered.cpu === 3000), { timeoutMs: 10_000 });
  t.like(advert, { sender: 'alpha', offered: { cpu: 3000, memory: 2048 } });
});

test('an in-memory connection to the embedded broker of the same process logs in, obeys the ACL and reconnects like a TCP one', async (t) => {
  const { broker, url } = await startAedes('alpha', CLUSTERS);
  t.teardown(() => broker.stop());
  const wrong = droneBusClient({ url, broker, cluster: 'beta', username: 'beta', password: 'not-it' }, codec);
  t.teardown(() => wrong.stop());
  t.true(isEdgeshifuError(await t.throwsAsync(wrong.start()), 'forbidden'), 'a wrong password is refused in memory too');
  const alpha = droneBusClient({ url, broker, cluster: 'alpha', username: 'alpha', password: password('alpha'), backoff: { initialMs: 20, maxMs: 100 } }, codec);
  t.teardown(() => alpha.stop());
  await alpha.start();
  const beta = droneBusClient({ url, broker, cluster: 'beta', username: 'beta', password: password('beta') }, codec);
  t.teardown(() => beta.stop());
  await beta.start();
  await t.throwsAsync(beta.subscribe([directTopic('alpha', 'gamma', 'host-reply').replace('alpha', '+')], () => undefined), { message: /refused the subscription/ }, 'beta may not read gamma\'s directed traffic');
  const seen: DroneMessage[] = [];
  await alpha.subscribe(['edgeshifu/v1/+/fed/#', 'edgeshifu/v1/+/to/#'], (m) => seen.push(m));
  // Published by beta under alpha's id: the broker refuses it (and drops beta's connection, which comes back).
  await beta.publishMessage(broadcastTopic('alpha', 'slice-advert'), { ...advert, v: 1, id: 'forged-0000000002', sender: 'alpha', timestamp: Date.now(), hops: 0 }).catch(() => undefined);
  const tcp = await client(t, url, 'gamma');
  await tcp.publish(broadcastTopic('gamma', 'slice-advert'), advert);
  await waitFor('gamma\'s advert, over TCP, at alpha in memory', () => (seen.some((m) => m.sender === 'gamma') ? true : undefined), { timeoutMs: 5000 });
  t.false(seen.some((m) => m.id === 'forged-0000000002'), 'nothing published under another cluster\'s id');
  // The in-memory stream closes with the broker's sessions; the client reconnects with its backoff.
  let drops = 0;
  const again = droneBusClient({ url, broker, cluster: 'alpha', username: 'alpha', password: password('alpha'), backoff: { initialMs: 20, maxMs: 100 }, onLink: (up) => { if (!up) drops += 1; } }, codec);
  t.teardown(() => again.stop());
  await again.start();
  await broker.stop();
  await waitFor('the connection to drop', () => (drops > 0 ? true : undefined), { timeoutMs: 5000 });
  t.false(again.connected, 'no broker, no connection');
  await broker.start();
  await waitFor('a reconnection once the broker is back', () => (again.connected ? true : undefined), { timeoutMs: 5000 });
  t.true(again.connected);
});
