// Reclaim on real brokers (aedes, one per cluster, relays between them): a job arriving to a full
// federation is placed by moving one placed component, while the move's messages are lost and
// repeated on the way, and each component still ends placed exactly once.
import test, { type ExecutionContext } from 'ava';
import type { DroneBus } from '../../controller/drone/agent.ts';
import type { DroneEvent } from '../../controller/drone/agent-core.ts';
import type { DroneBody } from '../../controller/drone/messages/index.ts';
import type { Job, Resources } from '../../controller/drone/model.ts';
import { waitFor } from '../support/wait.ts';
import { outcomeOf, startFederation, type Cleanup, type FederatedCluster } from './support/federation.ts';

const units = (n: number): Resources => ({ cpu: n * 250, memory: n * 256 });
const IDS = ['o', 'p', 'a', 'b', 'c'];

function cleanup(t: ExecutionContext): Cleanup {
  return (fn) => { t.teardown(async () => { await fn(); }); };
}

function job(app: string, origin: string, size: number): Job {
  return { app, origin, components: [{ name: 'p0', image: 'registry.example/i:1', resources: units(size) }] };
}

/** What a cluster's agent publishes, with some of it dropped or sent twice (each publish is a new message with a new id). */
interface Faults { readonly drop: (body: DroneBody, n: number) => boolean; readonly twice: (body: DroneBody, n: number) => boolean }

function faulty(bus: DroneBus, faults: Faults, published: DroneBody[]): DroneBus {
  return {
    subscribe: (filters, handler) => bus.subscribe(filters, handler),
    publish: async (topic, body) => {
      const n = published.filter((b) => b.kind === body.kind).length;
      published.push(body);
      if (faults.drop(body, n)) return undefined;
      if (faults.twice(body, n)) await bus.publish(topic, body);
      return bus.publish(topic, body);
    },
  };
}

const isMoveRequest = (b: DroneBody): boolean => b.kind === 'offload-request' && b.requestId.includes('.move.');
/** o loses its first move request and sends the next one twice; p loses its first release and asks c twice; a loses its first DEL_ACK. */
const FAULTS: Readonly<Record<string, Faults>> = {
  o: { drop: (b, n) => b.kind === 'move-request' && n === 0, twice: (b, n) => b.kind === 'move-request' && n === 1 },
  p: { drop: (b, n) => b.kind === 'move-release' && n === 0, twice: (b) => isMoveRequest(b) },
  a: { drop: (b, n) => b.kind === 'acknowledge' && b.typeAck === 'DEL_ACK' && n === 0, twice: () => false },
};

function of(clusters: ReadonlyMap<string, FederatedCluster>, id: string): FederatedCluster {
  const c = clusters.get(id);
  if (c === undefined) throw new Error(`no cluster ${id}`);
  return c;
}

/** The clusters holding `origin/app/component`, sorted. */
function holders(clusters: ReadonlyMap<string, FederatedCluster>, origin: string, app: string): string[] {
  return [...clusters.values()].filter((c) => c.agent.hosted().some((h) => h.origin === origin && h.app === app && h.component === 'p0')).map((c) => c.id).sort();
}

const count = (events: readonly DroneEvent[], match: (e: DroneEvent) => boolean): number => events.filter(match).length;

test('a job arriving to a full federation is placed by one move; a lost and a repeated message mid-move still leave each component placed once', async (t) => {
  const published = new Map<string, DroneBody[]>(IDS.map((id) => [id, []]));
  const clusters = await startFederation({
    ids: IDS,
    edges: IDS.flatMap((x, i) => IDS.slice(i + 1).map((y) => [x, y] as const)),
    free: (id) => (id === 'a' || id === 'b' ? units(4) : units(0)),
    wrap: (id, bus) => faulty(bus, FAULTS[id] ?? { drop: () => false, twice: () => false }, published.get(id) ?? []),
  }, cleanup(t));
  const [o, p, a, b, c] = IDS.map((id) => of(clusters, id)) as [FederatedCluster, FederatedCluster, FederatedCluster, FederatedCluster, FederatedCluster];
  await waitFor('a and b advertised to p', () => (JSON.stringify(p.agent.providers()) === '["a","b"]' ? true : undefined), { timeoutMs: 20_000 });

  // b runs its own large job; p's small one can only go to a.
  b.agent.submit(job('large-b', 'b', 4));
  t.like(outcomeOf(b, 'large-b'), { type: 'placed', placement: { p0: 'b' } });
  await waitFor('b full at p', () => (JSON.stringify(p.agent.providers()) === '["a"]' ? true : undefined), { timeoutMs: 20_000 });
  p.agent.submit(job('small', 'p', 2));
  t.like(await waitFor('small placed', () => outcomeOf(p, 'small'), { timeoutMs: 20_000 }), { type: 'placed', placement: { p0: 'a' } });

  // c gets room for the small one only; the large job fits nowhere as things stand.
  c.agent.setResources(units(2));
  await waitFor('a and c advertised to o', () => (JSON.stringify(o.agent.providers()) === '["a","c"]' ? true : undefined), { timeoutMs: 20_000 });
  o.agent.submit(job('large', 'o', 4));
  t.like(await waitFor('large failed', () => outcomeOf(o, 'large'), { timeoutMs: 20_000 }), { type: 'failed' });
  t.deepEqual(holders(clusters, 'p', 'small'), ['a']);

  o.agent.reclaim(job('large-r', 'o', 4));
  t.like(await waitFor('large-r placed', () => outcomeOf(o, 'large-r'), { timeoutMs: 30_000 }), { type: 'placed', placement: { p0: 'a' } });
  t.deepEqual(p.agent.placement('small'), { p0: 'c' });
  // Settled: a gave the small one back (after its lost DEL_ACK was asked for again).
  await waitFor('small held by c alone', () => (JSON.stringify(holders(clusters, 'p', 'small')) === '["c"]' ? true : undefined), { timeoutMs: 20_000 });
  t.deepEqual(holders(clusters, 'o', 'large-r'), ['a']);
  t.deepEqual(holders(clusters, 'b', 'large-b'), ['b']);

  // The faults happened: a move request lost then one sent twice, a release lost, the new host asked twice, a DEL_ACK lost.
  const sent = (id: string, match: (body: DroneBody) => boolean): number => (published.get(id) ?? []).filter(match).length;
  t.true(sent('o', (x) => x.kind === 'move-request') >= 2);
  t.true(sent('p', (x) => x.kind === 'move-release') >= 2);
  t.true(sent('p', isMoveRequest) >= 1);
  t.true(sent('a', (x) => x.kind === 'acknowledge' && x.typeAck === 'DEL_ACK') >= 2);
  // ... and nothing was acted on twice: one move, one new host, one release, one placement.
  t.is(count(p.decisions, (e) => e.type === 'moved'), 1);
  t.is(count(c.decisions, (e) => e.type === 'host' && e.app === 'small'), 1);
  t.is(count(a.decisions, (e) => e.type === 'release' && e.app === 'small'), 1);
  t.is(count(o.decisions, (e) => (e.type === 'placed' || e.type === 'failed') && e.app === 'large-r'), 1);
  t.is(count(p.decisions, (e) => e.type === 'failed'), 0);
});
