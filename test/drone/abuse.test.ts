// An authenticated neighbour that misbehaves, on real brokers (aedes in-process and Debian's
// mosquitto): its flood is held to its token bucket while another neighbour's messages all get
// through, and oversized, malformed, replayed and forged messages are dropped and counted, never
// handed to the agent.
import test, { type ExecutionContext } from 'ava';
import mqtt from 'mqtt';
import { Registry } from '../../shared/prometheus.ts';
import { samples } from '../support/metric-samples.ts';
import { busMetrics } from '../../shared/bus/metrics.ts';
import { broadcastTopic, relayTopicOf, parseTopic } from '../../shared/bus/topics.ts';
import { MAX_PAYLOAD_BYTES } from '../../shared/bus/codec.ts';
import { droneBusClient } from '../../controller/drone/bus.ts';
import { droneCodec, type DroneMessage } from '../../controller/drone/messages/index.ts';
import type { BusClient, BusOptions } from '../../shared/bus/client.ts';
import { waitFor } from '../support/wait.ts';
import { password, startAedes, startMosquitto, user } from './support/brokers.ts';
import { keyringFor } from './support/keys.ts';

const CLUSTERS = ['alpha', 'beta', 'gamma'];
const codec = droneCodec();
const advert = { kind: 'slice-advert' as const, offered: { cpu: 1000, memory: 1024 }, seq: 1, ttlMs: 15_000 };
const LIMIT = { perSecond: 5, burst: 10 };
const WINDOW = { pastMs: 60_000, futureMs: 5_000 };

const brokers: Array<{ name: string; start: (t: ExecutionContext) => Promise<{ url: string }> }> = [
  { name: 'aedes', start: async (t) => { const b = await startAedes('alpha', CLUSTERS); t.teardown(() => b.broker.stop()); return b; } },
  { name: 'Mosquitto', start: async (t) => { const m = await startMosquitto({ owner: 'alpha', users: CLUSTERS.map(user) }); t.teardown(() => m.stop()); return m; } },
];

async function client(t: ExecutionContext, url: string, cluster: string, extra: Partial<BusOptions> = {}): Promise<BusClient<DroneMessage>> {
  const c = droneBusClient({ url, cluster, username: cluster, password: password(cluster), qos: 1, keyring: keyringFor(cluster, CLUSTERS, true), ...extra }, codec);
  t.teardown(() => c.stop());
  await c.start();
  return c;
}

// eslint-disable-next-line @typescript-eslint/require-await
async function counts(registry: Registry, name: string, label: string): Promise<Record<string, number>> {
  const values = samples(registry, name);
  const out: Record<string, number> = {};
  for (const v of values) out[String(v.labels[label])] = (out[String(v.labels[label])] ?? 0) + v.value;
  return out;
}

for (const b of brokers) {
  test(`${b.name}: a neighbour's flood is held to its bucket, and another neighbour's adverts all arrive`, async (t) => {
    const broker = await b.start(t);
    const registry = new Registry();
    const metrics = busMetrics(registry);
    const alpha = await client(t, broker.url, 'alpha', { metrics, limits: { default: { perSecond: 1000, burst: 1000 }, byKind: { 'slice-advert': LIMIT } }, replayWindow: WINDOW });
    const got: DroneMessage[] = [];
    await alpha.subscribe(['edgeshifu/v1/+/fed/#'], (m) => got.push(m));
    const beta = await client(t, broker.url, 'beta');
    const gamma = await client(t, broker.url, 'gamma');
    const started = Date.now();
    const FLOOD = 300;
    const sends: Array<Promise<unknown>> = [];
    for (let i = 0; i < FLOOD; i++) {
      sends.push(beta.publish(broadcastTopic('beta', 'slice-advert'), { ...advert, seq: i }));
      // gamma speaks at its normal pace in the middle of the flood
      if (i % 60 === 0) sends.push(gamma.publish(broadcastTopic('gamma', 'slice-advert'), { ...advert, seq: i }));
    }
    await Promise.all(sends);
    const fromBeta = (): number => got.filter((m) => m.sender === 'beta').length;
    const limited = await waitFor('every flooded message accounted for', async () => {
      const byNeighbour = await counts(registry, 'edgeshifu_bus_messages_limited_total', 'neighbour');
      return fromBeta() + (byNeighbour.beta ?? 0) === FLOOD ? byNeighbour : undefined;
    }, { timeoutMs: 20_000 });
    const elapsedS = (Date.now() - started) / 1000;
    t.true(fromBeta() >= LIMIT.burst, `at least the burst passed (${fromBeta()})`);
    t.true(fromBeta() <= LIMIT.burst + Math.ceil(LIMIT.perSecond * elapsedS) + 1, `beta held to its bucket: ${fromBeta()} in ${elapsedS} s`);
    t.true((limited.beta ?? 0) > 0);
    t.is(limited.gamma, undefined, 'gamma was never limited');
    await waitFor('all of gamma\'s adverts', () => (got.filter((m) => m.sender === 'gamma').length === 5 ? true : undefined), { timeoutMs: 10_000 });
    const dropped = await counts(registry, 'edgeshifu_bus_messages_dropped_total', 'reason');
    t.is(dropped['rate-limited'], limited.beta);
  });

  test(`${b.name}: oversized, malformed, replayed and forged messages are dropped and counted, never handed on`, async (t) => {
    const broker = await b.start(t);
    const registry = new Registry();
    const alpha = await client(t, broker.url, 'alpha', { metrics: busMetrics(registry), replayWindow: WINDOW });
    const got: DroneMessage[] = [];
    await alpha.subscribe(['edgeshifu/v1/+/fed/#', 'edgeshifu/v1/+/relay/+/fed/#'], (m) => got.push(m));
    const gammaKeys = keyringFor('gamma', [], false);
    const betaKeys = keyringFor('beta', [], false);
    const now = Date.now();
    const signed = (sender: string, id: string, timestamp: number, keys = sender === 'gamma' ? gammaKeys : betaKeys): Buffer =>
      codec.encode({ ...advert, v: 1, id, sender, timestamp, hops: 0 }, (bytes) => keys.sign(bytes));
    const genuine = signed('gamma', 'gamma.genuine-0001', now);
    const raw = await mqtt.connectAsync(broker.url, { username: 'beta', password: password('beta') });
    t.teardown(() => raw.endAsync(true));
    const gammaRaw = await mqtt.connectAsync(broker.url, { username: 'gamma', password: password('gamma') });
    t.teardown(() => gammaRaw.endAsync(true));
    const relayed = relayTopicOf('beta', parseTopic(broadcastTopic('gamma', 'slice-advert'))!);
    const attacks: Array<{ what: string; topic: string; payload: Buffer; reason: string }> = [
      { what: 'oversized', topic: broadcastTopic('beta', 'slice-advert'), payload: Buffer.concat([Buffer.from('{"hops":0,"x":"'), Buffer.alloc(MAX_PAYLOAD_BYTES, 'a'), Buffer.from('"}')]), reason: 'too-large' },
      { what: 'malformed', topic: broadcastTopic('beta', 'slice-advert'), payload: Buffer.from('{"hops":0,"v":1,'), reason: 'not-json' },
      { what: 'replayed within the window (beta relays gamma\'s message again)', topic: relayed, payload: genuine, reason: 'duplicate' },
      { what: 'replayed from before the window', topic: relayed, payload: signed('gamma', 'gamma.old-00000001', now - 10 * 60_000), reason: 'stale' },
      { what: 'from the future', topic: relayed, payload: signed('gamma', 'gamma.future-00001', now + 10 * 60_000), reason: 'stale' },
      { what: 'forged: gamma as sender, signed with beta\'s key', topic: relayed, payload: signed('gamma', 'gamma.forged-00001', now, betaKeys), reason: 'bad-signature' },
      { what: 'forged: a sender that is not the topic\'s origin', topic: broadcastTopic('beta', 'slice-advert'), payload: signed('gamma', 'gamma.forged-00002', now, betaKeys), reason: 'wrong-sender' },
    ];
    await gammaRaw.publishAsync(broadcastTopic('gamma', 'slice-advert'), genuine, { qos: 1 });
    await waitFor('gamma\'s genuine advert', () => (got.some((m) => m.id === 'gamma.genuine-0001') ? true : undefined), { timeoutMs: 5000 });
    for (const a of attacks) await raw.publishAsync(a.topic, a.payload, { qos: 1 });
    const expected: Record<string, number> = {};
    for (const a of attacks) expected[a.reason] = (expected[a.reason] ?? 0) + 1;
    const dropped = await waitFor('every attack counted', async () => {
      const byReason = await counts(registry, 'edgeshifu_bus_messages_dropped_total', 'reason');
      return Object.entries(expected).every(([r, n]) => (byReason[r] ?? 0) >= n) ? byReason : undefined;
    }, { timeoutMs: 10_000 });
    for (const a of attacks) t.true((dropped[a.reason] ?? 0) >= 1, a.what);
    t.deepEqual(dropped, expected, 'each attack counted once under its reason');
    t.deepEqual(got.map((m) => m.id), ['gamma.genuine-0001'], 'only the genuine message was handed on, once');
  });
}

test('aedes: the broker paces a flooding login (it waits, on TCP backpressure) while another login\'s message goes straight through', async (t) => {
  const PACE = { perSecond: 50, burst: 10 };
  const { broker, url } = await startAedes('alpha', CLUSTERS, { pace: PACE });
  t.teardown(() => broker.stop());
  const arrivals: Array<{ sender: string; at: number }> = [];
  const alpha = await client(t, url, 'alpha');
  await alpha.subscribe(['edgeshifu/v1/+/fed/#'], (m) => arrivals.push({ sender: m.sender, at: Date.now() }));
  const beta = await client(t, url, 'beta');
  const gamma = await client(t, url, 'gamma');
  const FLOOD = 100;
  const started = Date.now();
  const flood = Promise.all(Array.from({ length: FLOOD }, (_, i) => beta.publish(broadcastTopic('beta', 'slice-advert'), { ...advert, seq: i })));
  await waitFor('the flood held by the broker', () => (broker.paced > 0 ? true : undefined), { timeoutMs: 10_000 });
  await gamma.publish(broadcastTopic('gamma', 'slice-advert'), advert);
  await waitFor('gamma\'s advert', () => (arrivals.some((a) => a.sender === 'gamma') ? true : undefined), { timeoutMs: 10_000 });
  const betaBefore = arrivals.filter((a) => a.sender === 'beta').length;
  t.true(betaBefore < FLOOD, `gamma's advert did not wait behind beta's flood (${betaBefore} of ${FLOOD} through)`);
  await flood;
  await waitFor('the whole flood, paced', () => (arrivals.filter((a) => a.sender === 'beta').length === FLOOD ? true : undefined), { timeoutMs: 30_000 });
  // Never more than the burst plus the rate since the flood started (a slow machine only delivers fewer).
  for (const [i, a] of arrivals.filter((x) => x.sender === 'beta').entries()) {
    t.true(i + 1 <= PACE.burst + Math.ceil(((a.at - started) * PACE.perSecond) / 1000) + 1, `message ${i + 1} at ${a.at - started} ms`);
  }
  t.true(broker.paced >= FLOOD - PACE.burst - 1);
});
