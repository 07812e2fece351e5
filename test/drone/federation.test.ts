import test, { type ExecutionContext } from 'ava';
import { mosquittoBridge } from '../../shared/bus/mosquitto.ts';
import type { DroneEvent } from '../../controller/drone/agent-core.ts';
import type { Job } from '../../controller/drone/model.ts';
import { waitFor } from '../support/wait.ts';
import { startMosquitto, user } from './support/brokers.ts';
import { outcomeOf, startFederation, waitForAdverts, type Cleanup, type FederatedCluster } from './support/federation.ts';
import { component, job } from './support/jobs.ts';

const none = { cpu: 0, memory: 0 };
const small = { cpu: 200, memory: 256 };
const big = { cpu: 8000, memory: 16384 };

function cleanup(t: ExecutionContext): Cleanup {
  return (fn) => { t.teardown(async () => { await fn(); }); };
}

async function placed(cluster: FederatedCluster, app = 'web', timeoutMs = 20_000): Promise<DroneEvent> {
  return waitFor(`the outcome of ${app} at ${cluster.id}`, () => outcomeOf(cluster, app), { timeoutMs });
}

function web(origin: string): Job {
  return job('web', origin, [component('front', 1000, 256), component('db', 1500, 1024)]);
}

function hostedOnce(clusters: ReadonlyMap<string, FederatedCluster>): boolean {
  const seen = new Set<string>();
  for (const c of clusters.values()) {
    for (const h of c.agent.hosted()) {
      const key = `${h.origin}/${h.app}/${h.component}`;
      if (seen.has(key)) return false;
      seen.add(key);
    }
  }
  return true;
}

test('a job crosses two relay hops (a—b—c, aedes brokers) to the only cluster with room', async (t) => {
  const clusters = await startFederation({ ids: ['a', 'b', 'c'], edges: [['a', 'b'], ['b', 'c']], free: (id) => (id === 'c' ? big : id === 'a' ? small : none) }, cleanup(t));
  await waitForAdverts(clusters, ['a', 'c']);
  const a = clusters.get('a')!;
  a.agent.submit(web('a'));
  const outcome = await placed(a);
  t.like(outcome, { type: 'placed', placement: { front: 'c', db: 'c' } });
  t.deepEqual(clusters.get('c')!.agent.hosted().map((h) => h.component).sort(), ['db', 'front']);
  t.true(hostedOnce(clusters));
});

test('in a ring of relays every message is relayed a bounded number of times and the job is placed once', async (t) => {
  const clusters = await startFederation({ ids: ['a', 'b', 'c', 'd'], edges: [['a', 'b'], ['b', 'c'], ['c', 'd'], ['d', 'a']], free: (id) => (id === 'a' ? small : big) }, cleanup(t));
  await waitForAdverts(clusters, ['a', 'b', 'c', 'd']);
  const a = clusters.get('a')!;
  a.agent.submit(web('a'));
  t.like(await placed(a), { type: 'placed' });
  const forwarded = (): number => [...clusters.values()].reduce((s, c) => s + (c.relay?.forwarded ?? 0), 0);
  let last = -1;
  const settled = await waitFor('relaying to stop', () => { const now = forwarded(); const done = now === last; last = now; return done ? now : undefined; }, { timeoutMs: 20_000, intervalMs: 300 });
  const published = [...clusters.values()].reduce((s, c) => s + c.agent.published, 0);
  // Each message crosses each of the 8 relay directions at most once.
  t.true(settled <= published * 8, `${settled} relayed for ${published} published`);
  t.true(hostedOnce(clusters));
});

test('the hop limit stops relayed traffic: with two hops, the far end of a line never hears the other end (relays on connections of their own)', async (t) => {
  const clusters = await startFederation({ ids: ['a', 'b', 'c', 'd'], edges: [['a', 'b'], ['b', 'c'], ['c', 'd']], free: () => big, maxHops: 2, sharedConnection: false }, cleanup(t));
  const d = clusters.get('d')!;
  // Adverts repeat every 5 s, so one missed at start-up comes again well within the deadline.
  await waitFor('adverts of b and c at d', () => (JSON.stringify(d.agent.providers()) === '["b","c"]' ? true : undefined), { timeoutMs: 40_000 });
  await waitFor('adverts of a, b and d at c', () => (JSON.stringify(clusters.get('c')!.agent.providers()) === '["a","b","d"]' ? true : undefined), { timeoutMs: 40_000 });
  t.deepEqual(d.agent.providers(), ['b', 'c']);
  t.deepEqual(clusters.get('a')!.agent.providers(), ['b', 'c']);
});


test('a cluster whose broker is Mosquitto federates through relays with clusters on aedes', async (t) => {
  const m = await startMosquitto({ owner: 'a', users: ['a', 'b', 'c'].map(user) });
  t.teardown(() => m.stop());
  const clusters = await startFederation({
    ids: ['a', 'b', 'c'], edges: [['a', 'b'], ['b', 'c']], free: (id) => (id === 'a' ? small : id === 'c' ? big : none),
    brokerUrl: (id) => (id === 'a' ? m.url : undefined),
  }, cleanup(t));
  await waitForAdverts(clusters, ['a', 'c']);
  const a = clusters.get('a')!;
  a.agent.submit(web('a'));
  t.like(await placed(a), { type: 'placed', placement: { front: 'c', db: 'c' } });
});

test('two Mosquitto brokers joined by a bridge instead of relays run the auction too', async (t) => {
  const remote = await startMosquitto({ owner: 'b', users: [user('b'), user('a'), { username: 'bridge-a', password: 'bridge-secret-1', cluster: 'a' }], bridgeUsers: ['bridge-a'] });
  t.teardown(() => remote.stop());
  const local = await startMosquitto({
    owner: 'a', users: [user('a'), user('b')],
    extra: mosquittoBridge({ name: 'a-to-b', address: `127.0.0.1:${remote.port}`, remoteUsername: 'bridge-a', remotePassword: 'bridge-secret-1' }),
  });
  t.teardown(() => local.stop());
  const clusters = await startFederation({
    ids: ['a', 'b'], edges: [], relays: false, free: (id) => (id === 'a' ? small : big),
    brokerUrl: (id) => (id === 'a' ? local.url : remote.url),
  }, cleanup(t));
  await waitForAdverts(clusters, ['a', 'b']);
  const a = clusters.get('a')!;
  a.agent.submit(web('a'));
  t.like(await placed(a), { type: 'placed', placement: { front: 'b', db: 'b' } });
  t.deepEqual(clusters.get('b')!.agent.hosted().map((h) => h.component).sort(), ['db', 'front']);
});

test('when the broker restarts in the middle of an auction, the agents reconnect, converge and place each component once', async (t) => {
  const m = await startMosquitto({ owner: 'a', users: ['a', 'b', 'c'].map(user) });
  t.teardown(() => m.stop());
  const timers = { weakAgreementMs: 20_000, replyTimeoutMs: 15_000, gossipMs: 200, advertIntervalMs: 1_000, advertTtlMs: 30_000 };
  const clusters = await startFederation({ ids: ['a', 'b', 'c'], edges: [], relays: false, free: (id) => (id === 'a' ? small : big), brokerUrl: () => m.url, timers }, cleanup(t));
  await waitForAdverts(clusters, ['a', 'b', 'c']);
  await m.kill();
  const a = clusters.get('a')!;
  a.agent.submit(web('a'));
  t.is(outcomeOf(a, 'web'), undefined, 'no decision while the broker is down');
  await m.restart();
  const outcome = await placed(a, 'web', 40_000);
  t.is(outcome.type, 'placed');
  t.true(hostedOnce(clusters));
  const placement = (outcome as Extract<DroneEvent, { type: 'placed' }>).placement;
  for (const [name, host] of Object.entries(placement)) t.true(clusters.get(host)!.agent.hosted().some((h) => h.component === name), `${name} on ${host}`);
});
