import test, { type ExecutionContext } from 'ava';
import { RelayRoutes } from '../../shared/bus/routes.ts';
import { FederationRelay } from '../../shared/bus/relay.ts';
import { Registry } from '../../shared/prometheus.ts';
import { samples } from '../support/metric-samples.ts';
import { broadcastTopic, directTopic } from '../../shared/bus/topics.ts';
import { busMetrics, type BusMetrics } from '../../shared/bus/metrics.ts';
import type { BusClient } from '../../shared/bus/client.ts';
import { droneBusClient } from '../../controller/drone/bus.ts';
import { droneCodec, type DroneMessage } from '../../controller/drone/messages/index.ts';
import { waitFor } from '../support/wait.ts';
import { password, startAedes } from './support/brokers.ts';

test('a relay prunes, towards each neighbour, the origins it gets from another one, and itself', (t) => {
  const r = new RelayRoutes({ self: 'b', ttlMs: 1000 });
  t.true(r.learn('a', 'a'));
  t.false(r.learn('a', 'c'), 'the first way in stays');
  t.true(r.learn('d', 'c'));
  t.deepEqual(r.pruneFor('a'), ['b', 'd']);
  t.deepEqual(r.pruneFor('c'), ['a', 'b']);
  t.deepEqual(r.pruneFor('e'), ['a', 'b', 'd']);
});

test('a broadcast goes to a neighbour unless its current list says it gets that origin elsewhere; lists expire', (t) => {
  const r = new RelayRoutes({ self: 'b', ttlMs: 1000 });
  t.true(r.forwards('a', 'c', 0), 'no list yet: as flooding');
  r.received('c', ['a', 'c'], 0);
  t.false(r.forwards('a', 'c', 10));
  t.true(r.forwards('d', 'c', 10));
  t.true(r.forwards('a', 'c', 1000), 'an expired list prunes nothing');
});

test('when the link to its parent goes, a relay forgets the routes through it and stops pruning them', (t) => {
  const r = new RelayRoutes({ self: 'b', ttlMs: 1000 });
  r.learn('a', 'a');
  r.learn('x', 'a');
  r.learn('d', 'c');
  r.received('a', ['a', 'x'], 0);
  t.true(r.linkDown('a'));
  t.is(r.parent('x'), undefined);
  t.deepEqual(r.pruneFor('c'), ['b']);
  t.true(r.forwards('a', 'a', 10), 'its list went with the link');
  t.false(r.linkDown('a'));
  t.true(r.learn('x', 'c'), 'learns a new way in');
});

test('a relay forgets a route whose parent no longer says it gets that origin elsewhere (no branch waits on itself)', (t) => {
  const r = new RelayRoutes({ self: 'b', ttlMs: 1000 });
  r.learn('x', 'a');
  r.learn('y', 'a');
  t.false(r.received('a', ['a', 'x', 'y'], 0));
  t.is(r.parent('x'), 'a');
  t.true(r.received('a', ['a', 'y'], 5), 'a lost its way to x, or reaches it through b');
  t.is(r.parent('x'), undefined);
  t.is(r.parent('y'), 'a');
  t.false(r.received('a', ['y'], 6), 'a list need not name the sender itself');
});

// Four clusters, each linked to the three others (a full mesh): flooding sends a broadcast over
// up to 9 links, a tree over 3.
const ids = ['a', 'b', 'c', 'd'];
const codec = droneCodec();

interface Mesh {
  readonly relays: Map<string, FederationRelay<DroneMessage>>;
  readonly clients: Map<string, BusClient<DroneMessage>>;
  readonly urls: Map<string, string>;
  readonly got: Map<string, Set<string>>;
}

async function mesh(t: ExecutionContext, tree: boolean): Promise<Mesh> {
  const urls = new Map<string, string>();
  for (const id of ids) {
    const b = await startAedes(id, ids);
    t.teardown(() => b.broker.stop());
    urls.set(id, b.url);
  }
  const relays = new Map<string, FederationRelay<DroneMessage>>();
  const clients = new Map<string, BusClient<DroneMessage>>();
  const got = new Map<string, Set<string>>();
  for (const id of ids) {
    const client = droneBusClient({ url: urls.get(id)!, cluster: id, username: id, password: password(id) }, codec);
    t.teardown(() => client.stop());
    await client.start();
    const relay = new FederationRelay<DroneMessage>({ cluster: id, local: client, tree, neighbours: neighbours(id, ids, urls) }, codec);
    t.teardown(() => relay.stop());
    await relay.start();
    const seen = new Set<string>();
    await client.subscribe(['edgeshifu/v1/+/relay/+/fed/#'], (m) => seen.add(m.id));
    relays.set(id, relay);
    clients.set(id, client);
    got.set(id, seen);
  }
  for (const [id, relay] of relays) await waitFor(`links of ${id}`, () => (relay.linksUp() === 3 ? true : undefined), { timeoutMs: 10_000 });
  return { relays, clients, urls, got };
}

function neighbours(id: string, of: readonly string[], urls: ReadonlyMap<string, string>): Array<{ cluster: string; url: string; username: string; password: string }> {
  return of.filter((n) => n !== id).map((n) => ({ cluster: n, url: urls.get(n)!, username: id, password: password(id) }));
}

const total = (m: Mesh): number => [...m.relays.values()].reduce((s, r) => s + r.forwarded, 0);

/** Publishes one broadcast from a and waits until `at` have it and relaying has stopped; how many times it was relayed. */
async function send(m: Mesh, seq: number, at: readonly string[]): Promise<{ relayed: number; id: string }> {
  const before = total(m);
  const message = await m.clients.get('a')!.publish(broadcastTopic('a', 'slice-advert'), { kind: 'slice-advert', offered: { cpu: 1, memory: 1 }, seq, ttlMs: 1000 });
  await waitFor(`advert ${seq} everywhere`, () => (at.every((id) => m.got.get(id)!.has(message.id)) ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
  let last = -1;
  const settled = await waitFor('relaying to stop', () => { const now = total(m); const done = now === last; last = now; return done ? now : undefined; }, { timeoutMs: 10_000, intervalMs: 100 });
  return { relayed: settled - before, id: message.id };
}

async function broadcast(m: Mesh, seq: number): Promise<number> {
  return (await send(m, seq, ['b', 'c', 'd'])).relayed;
}

test('in a full mesh, flooding relays a broadcast more than once per cluster; along the tree exactly once per cluster', async (t) => {
  const flooded = await mesh(t, false);
  const floods = [await broadcast(flooded, 1), await broadcast(flooded, 2)];
  t.true(floods.every((n) => n > 3), `flooding: ${floods.join(', ')}`);

  const m = await mesh(t, true);
  // The first broadcasts teach the routes; the lists follow within milliseconds.
  await waitFor('a broadcast relayed along the tree', async () => ((await broadcast(m, 3)) === 3 ? true : undefined), { timeoutMs: 20_000, intervalMs: 10 });
  t.deepEqual([await broadcast(m, 4), await broadcast(m, 5), await broadcast(m, 6)], [3, 3, 3]);
});

test('when a tree link goes, the cluster below it gets the broadcasts through another neighbour', async (t) => {
  const m = await mesh(t, true);
  await waitFor('a broadcast relayed along the tree', async () => ((await broadcast(m, 1)) === 3 ? true : undefined), { timeoutMs: 20_000, intervalMs: 10 });
  // Cut b's way in for a's traffic, on both sides.
  const parent = m.relays.get('b')!.routeTo('a')!;
  t.truthy(parent);
  await m.relays.get(parent)!.setNeighbours(neighbours(parent, ids.filter((id) => id !== 'b'), m.urls));
  await m.relays.get('b')!.setNeighbours(neighbours('b', ids.filter((id) => id !== parent), m.urls));
  let seq = 10;
  await waitFor('a broadcast at b again', async () => {
    seq += 1;
    const { id } = await send(m, seq, ['c', 'd']);
    return m.got.get('b')!.has(id) ? true : undefined;
  }, { timeoutMs: 20_000, intervalMs: 10 });
  await waitFor('the tree again', async () => { seq += 1; return (await broadcast(m, seq)) === 3 ? true : undefined; }, { timeoutMs: 20_000, intervalMs: 10 });
  t.is(await broadcast(m, seq + 1), 3);
  t.not(m.relays.get('b')!.routeTo('a'), parent);
});

function counter(registry: Registry, name: string, label: string): number {
  const values = samples(registry, name);
  return values.filter((v) => Object.values(v.labels).includes(label)).reduce((s, v) => s + v.value, 0);
}

for (const shared of [true, false]) {
  test(`a cluster's own message leaves through its relay as it is published, and the broker's echo is not relayed again (${shared ? 'the agent\'s connection shared' : 'a connection of its own, told of the agent\'s publishes'})`, async (t) => {
    const urls = new Map<string, string>();
    for (const id of ['a', 'b']) {
      const b = await startAedes(id, ['a', 'b']);
      t.teardown(() => b.broker.stop());
      urls.set(id, b.url);
    }
    const [relayMetrics, bMetrics] = [new Registry(), new Registry()];
    const relayCounters = busMetrics(relayMetrics);
    const clientOf = async (id: string, metrics?: BusMetrics): Promise<BusClient<DroneMessage>> => {
      const c = droneBusClient({ url: urls.get(id)!, cluster: id, username: id, password: password(id), ...(metrics === undefined ? {} : { metrics }) }, codec);
      t.teardown(() => c.stop());
      await c.start();
      return c;
    };
    const a = await clientOf('a', shared ? relayCounters : undefined);
    const b = await clientOf('b', busMetrics(bMetrics));
    const local = shared ? a : { url: urls.get('a')!, username: 'a', password: password('a') };
    const relay = new FederationRelay<DroneMessage>({ cluster: 'a', local, neighbours: neighbours('a', ['b'], urls), metrics: relayCounters, ...(shared ? {} : { publisher: a }) }, codec);
    t.teardown(() => relay.stop());
    await relay.start();
    await waitFor('the link to b', () => (relay.linksUp() === 1 ? true : undefined), { timeoutMs: 10_000 });
    const got: string[] = [];
    await b.subscribe(['edgeshifu/v1/+/relay/+/to/b/#'], (m) => got.push(m.id));

    const sent = a.publish(directTopic('a', 'b', 'acknowledge'), { kind: 'acknowledge', to: 'b', typeAck: 'ADD_ACK', app: 'web', component: 'api' });
    t.is(relay.forwarded, 1, 'forwarded within publish(), before any broker has seen it');
    const message = await sent;
    await waitFor('the message at b', () => (got.includes(message.id) ? true : undefined), { timeoutMs: 10_000 });
    await waitFor('the echo at a\'s relay', () => ((counter(relayMetrics, 'edgeshifu_bus_messages_received_total', 'acknowledge')) >= 1 ? true : undefined), { timeoutMs: 10_000 });
    t.is(relay.forwarded, 1, 'the echo is not forwarded again');
    t.deepEqual(got, [message.id]);
    t.is(counter(bMetrics, 'edgeshifu_bus_messages_dropped_total', 'duplicate'), 0, 'b never got a second copy');
  });
}
