// Multi-recipient messages (the agreement's latency): one message for every provider
// called, carried by the relays once over each link on the way and split where the routes part.
// Pure parts first (topics, the split, what the agent publishes), then real brokers: a line of
// relays, a ring, a tree whose routes part, a Mosquitto in the middle, and forged recipients.
import test, { type ExecutionContext } from 'ava';
import { Registry } from '../../shared/prometheus.ts';
import { samples } from '../support/metric-samples.ts';
import { maySubscribe } from '../../shared/bus/acl.ts';
import type { BusClient } from '../../shared/bus/client.ts';
import { busMetrics } from '../../shared/bus/metrics.ts';
import { FederationRelay } from '../../shared/bus/relay.ts';
import { splitByNextHop } from '../../shared/bus/routes.ts';
import { agentFilters, broadcastTopic, multiFilters, multiTopic, parseTopic, relayTopicOf } from '../../shared/bus/topics.ts';
import { DEFAULT_TIMERS, type DroneEvent } from '../../controller/drone/agent-core.ts';
import { droneBusClient } from '../../controller/drone/bus.ts';
import { onTheWire, toEach } from '../../controller/drone/core/addressing.ts';
import { droneCodec, type DroneBody, type DroneMessage } from '../../controller/drone/messages/index.ts';
import { waitFor } from '../support/wait.ts';
import { password, startAedes, startMosquitto, user } from './support/brokers.ts';
import { SimFederation, type ClusterSpec } from './support/network.ts';
import { outcomeOf, startFederation, waitForAdverts } from './support/federation.ts';
import { component, job } from './support/jobs.ts';
import { keyringFor } from './support/keys.ts';

test('a multi-recipient topic names the recipients of its copy; relays rename the copy for each link', (t) => {
  const topic = multiTopic('a', ['b', 'c-2'], 'votes');
  t.is(topic, 'edgeshifu/v1/a/multi/b.c-2/votes');
  t.like(parseTopic(topic), { publisher: 'a', origin: 'a', scope: 'multi', recipients: ['b', 'c-2'], kind: 'votes', relayed: false });
  const relayed = relayTopicOf('b', parseTopic(topic)!, ['c-2']);
  t.is(relayed, 'edgeshifu/v1/b/relay/a/multi/c-2/votes');
  t.like(parseTopic(relayed), { publisher: 'b', origin: 'a', scope: 'multi', recipients: ['c-2'], relayed: true });
  for (const bad of ['edgeshifu/v1/a/multi/b..c/votes', 'edgeshifu/v1/a/multi/B/votes', 'edgeshifu/v1/a/multi/votes', `edgeshifu/v1/a/multi/${Array.from({ length: 65 }, (_, i) => `c${i}`).join('.')}/votes`]) {
    t.is(parseTopic(bad), undefined, bad);
  }
  t.throws(() => multiTopic('a', [], 'votes'), { message: /1 to 64 recipients/ });
  t.throws(() => multiTopic('a', ['b.c'], 'votes'), { message: /recipient cluster id "b.c"/ });
});

test('only a broker\'s owner may read multi-recipient topics', (t) => {
  for (const filter of multiFilters()) {
    t.true(maySubscribe({ cluster: 'a' }, filter, 'a'), `owner: ${filter}`);
    t.false(maySubscribe({ cluster: 'b' }, filter, 'a'), `another cluster: ${filter}`);
  }
  t.false(agentFilters('b').some((f) => f.includes('multi')), 'clusters sharing a broker never get them');
});

test('recipients go over the link of their route, split where routes part; those without a route over every link; none back the way it came', (t) => {
  const routes: Record<string, string> = { c: 'b', d: 'b', e: 'x', back: 'p' };
  const next = (r: string): string | undefined => routes[r];
  t.deepEqual([...splitByNextHop(['c', 'd', 'e'], next, ['b', 'x'])], [['b', ['c', 'd']], ['x', ['e']]]);
  t.deepEqual([...splitByNextHop(['c', 'back'], next, ['b', 'x'])], [['b', ['c']]], 'the way it came (p) is not a link to send on');
  t.deepEqual([...splitByNextHop(['c', 'new', 'e'], next, ['b', 'x', 'y'])], [['b', ['c', 'new']], ['x', ['new', 'e']], ['y', ['new']]], 'no route: every link, with what it carries already');
  t.deepEqual([...splitByNextHop([], next, ['b'])], []);
});

const votes: DroneBody = { kind: 'votes', app: 'web', baseCluster: 'o', entries: [], winners: {}, round: 1 };

test('the agent publishes one message naming every recipient with multicast, one per recipient without', (t) => {
  const out = toEach(['c', 'b', 'c'], votes);
  t.deepEqual(out.recipients, ['b', 'c'], 'sorted, each once');
  t.deepEqual(onTheWire(out, true), [{ recipients: ['b', 'c'], body: { ...votes, recipients: ['b', 'c'] } }]);
  t.deepEqual(onTheWire(out, false), [{ to: 'b', body: { ...votes, to: 'b' } }, { to: 'c', body: { ...votes, to: 'c' } }]);
  t.deepEqual(onTheWire(toEach(['b'], votes), true), [{ to: 'b', body: { ...votes, to: 'b' } }], 'one recipient: an ordinary directed message');
  t.deepEqual(onTheWire({ body: votes }, true), [{ body: votes }], 'a broadcast stays one');
  const many = onTheWire(toEach(Array.from({ length: 129 }, (_, i) => `c${String(i).padStart(3, '0')}`), votes), true);
  t.deepEqual(many.map((m) => m.recipients?.length ?? 1), [64, 64, 1], 'at most 64 recipients per message');
});

const providers: ClusterSpec[] = ['o', 'p1', 'p2', 'p3', 'p4', 'p5'].map((id) => ({ id, free: id === 'o' ? { cpu: 0, memory: 0 } : { cpu: 4000 + 100 * id.length, memory: 8192 }, scalePercent: 100 }));

for (const mode of ['open', 'sealed'] as const) {
  test(`in ${mode} mode the auction decides the same with one message for all the bidders as with one for each, in fewer messages`, (t) => {
    const run = (multicast: boolean): { outcome: unknown; sent: number; delivered: number } => {
      const fed = new SimFederation(providers, { seed: 7, mode, multicast });
      fed.start();
      fed.run(100);
      const before = fed.sent.length;
      fed.submit(job('web', 'o', [component('front', 1000, 256), component('db', 1500, 1024)]));
      fed.run(5_000);
      const delivered = [...fed.received.values()].reduce((s, r) => s + r.filter((m) => 'app' in m && m.app === 'web').length, 0);
      return { outcome: fed.outcomes().get('o/web'), sent: fed.sent.length - before, delivered };
    };
    const one = run(true);
    const each = run(false);
    t.like((one.outcome as DroneEvent[] | undefined)?.[0], { type: 'placed' });
    t.deepEqual(one.outcome, each.outcome);
    t.is(one.delivered, each.delivered, 'every recipient gets the same messages');
    t.true(one.sent < each.sent, `${one.sent} messages published against ${each.sent}`);
  });
}

// Real brokers: a relay and an agent-like subscriber per cluster, sharing one connection as in a federation.
const codec = droneCodec();

interface Net {
  readonly clients: Map<string, BusClient<DroneMessage>>;
  readonly relays: Map<string, FederationRelay<DroneMessage>>;
  /** Messages each cluster's own handler got, by id (with how many times). */
  readonly got: Map<string, Map<string, number>>;
}

async function network(t: ExecutionContext, edges: ReadonlyArray<readonly [string, string]>, urlOf: (id: string) => Promise<string>): Promise<Net> {
  const ids = [...new Set(edges.flat())].sort();
  const urls = new Map<string, string>();
  for (const id of ids) urls.set(id, await urlOf(id));
  const net: Net = { clients: new Map(), relays: new Map(), got: new Map() };
  for (const id of ids) {
    const client = droneBusClient({ url: urls.get(id)!, cluster: id, username: id, password: password(id) }, codec);
    t.teardown(() => client.stop());
    await client.start();
    const neighbours = edges.flatMap(([a, b]) => (a === id ? [b] : b === id ? [a] : [])).map((n) => ({ cluster: n, url: urls.get(n)!, username: id, password: password(id) }));
    const relay = new FederationRelay<DroneMessage>({ cluster: id, local: client, neighbours }, codec);
    t.teardown(() => relay.stop());
    await relay.start();
    const got = new Map<string, number>();
    await client.subscribe([...agentFilters(id), ...multiFilters()], (m) => { if (m.sender !== id) got.set(m.id, (got.get(m.id) ?? 0) + 1); });
    net.clients.set(id, client);
    net.relays.set(id, relay);
    net.got.set(id, got);
    t.teardown(() => relay.stop());
  }
  for (const [id, relay] of net.relays) {
    const want = edges.filter((e) => e.includes(id)).length;
    await waitFor(`links of ${id}`, () => (relay.linksUp() === want ? true : undefined), { timeoutMs: 10_000 });
  }
  // Every cluster speaks once, so that each relay learns its way to each of them.
  const adverts: string[] = [];
  for (const [id, client] of net.clients) adverts.push((await client.publish(broadcastTopic(id, 'slice-advert'), { kind: 'slice-advert', offered: { cpu: 1, memory: 1 }, seq: 1, ttlMs: 60_000 })).id);
  await waitFor('every advert everywhere', () => ([...net.got].every(([id, got]) => adverts.filter((a) => !a.startsWith(`${id}.`)).every((a) => got.has(a))) ? true : undefined), { timeoutMs: 10_000 });
  return net;
}

const forwarded = (net: Net): number => [...net.relays.values()].reduce((s, r) => s + r.forwarded, 0);

async function settled(net: Net): Promise<number> {
  let last = -1;
  return waitFor('relaying to stop', () => { const now = forwarded(net); const done = now === last; last = now; return done ? now : undefined; }, { timeoutMs: 10_000, intervalMs: 150 });
}

/** `from` sends one multi-recipient message; waits until every recipient has it and relaying stopped; the forwards it cost. */
async function multicast(net: Net, from: string, recipients: readonly string[]): Promise<{ id: string; relayed: number }> {
  const before = await settled(net);
  const message = await net.clients.get(from)!.publish(multiTopic(from, recipients, 'votes'), { ...votes, baseCluster: from, recipients } as DroneBody);
  await waitFor(`the message at ${recipients.join(', ')}`, () => (recipients.every((r) => net.got.get(r)!.has(message.id)) ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
  return { id: message.id, relayed: (await settled(net)) - before };
}

function aedes(t: ExecutionContext, ids: readonly string[]): (id: string) => Promise<string> {
  return async (id) => {
    const b = await startAedes(id, ids);
    t.teardown(() => b.broker.stop());
    return b.url;
  };
}

const line = [['a', 'b'], ['b', 'c'], ['c', 'd'], ['d', 'e']] as const;

test('along a line of relays (aedes), a message for four clusters crosses each link once, and each of them gets it once', async (t) => {
  const net = await network(t, line, aedes(t, ['a', 'b', 'c', 'd', 'e']));
  const { id, relayed } = await multicast(net, 'a', ['b', 'c', 'd', 'e']);
  t.is(relayed, 4, 'one copy over each of the 4 links (it was 1 + 2 + 3 + 4 with a message each)');
  for (const r of ['b', 'c', 'd', 'e']) t.is(net.got.get(r)!.get(id), 1, r);
});

test('a cluster a multi-recipient message only passes through forwards it without taking it', async (t) => {
  const net = await network(t, line, aedes(t, ['a', 'b', 'c', 'd', 'e']));
  const { id, relayed } = await multicast(net, 'a', ['c', 'e']);
  t.is(relayed, 4);
  t.false(net.got.get('b')!.has(id), 'b carried it, not for b');
  t.false(net.got.get('d')!.has(id), 'd carried it, not for d');
  t.is(net.got.get('c')!.get(id), 1);
  t.is(net.got.get('e')!.get(id), 1);
});

test('where the routes part, the message splits: one copy down each branch', async (t) => {
  // a—b, a—c—d: from a to b and d, the copies go a→b (b) and a→c→d (d).
  const net = await network(t, [['a', 'b'], ['a', 'c'], ['c', 'd']], aedes(t, ['a', 'b', 'c', 'd']));
  const { id, relayed } = await multicast(net, 'a', ['b', 'd']);
  t.is(relayed, 3);
  t.is(net.got.get('b')!.get(id), 1);
  t.is(net.got.get('d')!.get(id), 1);
  t.false(net.got.get('c')!.has(id));
});

test('in a ring of relays (aedes), every recipient gets a multi-recipient message once and relaying stops', async (t) => {
  const net = await network(t, [['a', 'b'], ['b', 'c'], ['c', 'd'], ['d', 'a']], aedes(t, ['a', 'b', 'c', 'd']));
  const { id, relayed } = await multicast(net, 'a', ['b', 'c', 'd']);
  for (const r of ['b', 'c', 'd']) t.is(net.got.get(r)!.get(id), 1, r);
  t.true(relayed <= 4, `${relayed} forwards for 3 recipients on a ring of 4`);
  t.true(relayed >= 2);
});


test('through a Mosquitto in the middle of a line, a message for three clusters crosses each link once', async (t) => {
  const ids = ['a', 'b', 'c', 'd'];
  const net = await network(t, [['a', 'b'], ['b', 'c'], ['c', 'd']], async (id) => {
    if (id !== 'b') return aedes(t, ids)(id);
    const m = await startMosquitto({ owner: 'b', users: ids.map(user) });
    t.teardown(() => m.stop());
    return m.url;
  });
  const { id, relayed } = await multicast(net, 'a', ['b', 'c', 'd']);
  t.is(relayed, 3);
  for (const r of ['b', 'c', 'd']) t.is(net.got.get(r)!.get(id), 1, r);
});

test('a multi-recipient copy whose topic names a cluster the sender did not name is dropped as wrong-recipient', async (t) => {
  const b = await startAedes('b', ['a', 'b']);
  t.teardown(() => b.broker.stop());
  const registry = new Registry();
  const owner = droneBusClient({ url: b.url, cluster: 'b', username: 'b', password: password('b'), metrics: busMetrics(registry) }, codec);
  t.teardown(() => owner.stop());
  await owner.start();
  const got: string[] = [];
  await owner.subscribe(multiFilters(), (m) => got.push(m.id));
  const a = droneBusClient({ url: b.url, cluster: 'a', username: 'a', password: password('a') }, codec);
  t.teardown(() => a.stop());
  await a.start();
  // Signed (or sent) for c and d; the topic claims it is for b.
  await a.publish(multiTopic('a', ['b'], 'votes'), { ...votes, baseCluster: 'a', recipients: ['c', 'd'] });
  const fine = await a.publish(multiTopic('a', ['b'], 'votes'), { ...votes, baseCluster: 'a', recipients: ['b', 'd'] });
  await waitFor('the genuine one', () => (got.includes(fine.id) ? true : undefined), { timeoutMs: 10_000 });
  t.deepEqual(got, [fine.id]);
  const values = samples(registry, 'edgeshifu_bus_messages_dropped_total');
  t.is(values.find((v) => v.labels.reason === 'wrong-recipient')?.value, 1);
});

test('open and sealed jobs on a line of five clusters, signatures required, are placed once, the first announcement one message for the four bidders', async (t) => {
  for (const mode of ['open', 'sealed'] as const) {
    const ids = ['c0', 'c1', 'c2', 'c3', 'c4'];
    const registry = new Registry();
    const metrics = busMetrics(registry);
    const published: Array<{ cluster: string; topic: string; kind: string }> = [];
    const clusters = await startFederation({
      ids, edges: [['c0', 'c1'], ['c1', 'c2'], ['c2', 'c3'], ['c3', 'c4']], mode, free: (id) => (id === 'c0' ? { cpu: 0, memory: 0 } : { cpu: 8000, memory: 16384 }),
      timers: { ...DEFAULT_TIMERS }, tap: (cluster, topic, body) => published.push({ cluster, topic, kind: body.kind }),
      bus: (id) => ({ keyring: keyringFor(id, ids, true), metrics }),
    }, (fn) => { t.teardown(async () => { await fn(); }); });
    await waitForAdverts(clusters, ids.slice(1));
    const origin = clusters.get('c0')!;
    origin.agent.submit(job('web', 'c0', [component('front', 1000, 256), component('db', 1500, 1024)]));
    const outcome = await waitFor('the outcome', () => outcomeOf(origin, 'web'), { timeoutMs: 20_000 });
    t.is(outcome.type, 'placed', mode);
    const hosts = [...clusters.values()].flatMap((c) => c.agent.hosted().filter((h) => h.origin === 'c0').map((h) => `${h.component}@${c.id}`));
    t.is(hosts.length, 2, `${mode}: each component hosted once (${hosts.join(', ')})`);
    const adverts = published.filter((p) => p.cluster === 'c0' && p.kind === 'advertisement');
    // The origin announces again while no agreement is in sight (after gossipMs, then doubling),
    // so a slow machine sees later announcements too (sealed: to the silent bidders only); the
    // first one goes to all four bidders as one message.
    t.is(adverts[0]?.topic, 'edgeshifu/v1/c0/multi/c1.c2.c3.c4/advertisement', mode);
    const dropped = samples(registry, 'edgeshifu_bus_messages_dropped_total');
    t.deepEqual(dropped.filter((v) => v.labels.reason !== 'duplicate' && v.value > 0), [], `${mode}: every signature checked out`);
  }
});
