// Whom an origin calls to bid (auction/candidates.ts), and the auction when it calls only a few:
// the others never hear of the app, and more are called when the first ones cannot place it.
import test from 'ava';
import { callList, roundSize } from '../../controller/drone/auction/candidates.ts';
import { DEFAULT_TIMERS, DroneCore, type Output } from '../../controller/drone/agent-core.ts';
import type { FedSlice } from '../../controller/drone/fed-slices.ts';
import { SimFederation, type ClusterSpec } from './support/network.ts';
import { component, job } from './support/jobs.ts';
import type { DroneMessage } from '../../controller/drone/messages/index.ts';

function slice(cluster: string, cpu: number, memory: number, hops = 0): FedSlice {
  return { cluster, offered: { cpu, memory }, seq: 1, expiresAt: 1_000, hops };
}

const api = component('api', 1000, 1000);
const db = component('db', 2000, 1000);

test('providers are called by how much of the app their advert holds, then by the room left, then the nearest, then the id', (t) => {
  const slices = [
    slice('a', 1500, 5000),  // holds api only
    slice('b', 3000, 2000),  // holds both, room 1x
    slice('c', 9000, 9000),  // holds both, room 3x
    slice('d', 9000, 9000, 2), // as c, but two relays away
    slice('e', 9000, 9000, 2), // as d
    slice('f', 500, 500),    // holds nothing
  ];
  t.deepEqual(callList(slices, [api, db], new Set(), 10), ['c', 'd', 'e', 'b', 'a']);
  t.deepEqual(callList(slices, [api, db], new Set(), 2), ['c', 'd'], 'at most the round size');
  t.deepEqual(callList([...slices].reverse(), [api, db], new Set(), 10), ['c', 'd', 'e', 'b', 'a'], 'whatever order the adverts came in');
  t.deepEqual(callList(slices, [api, db], new Set(['c', 'd']), 2), ['e', 'b'], 'those already called are left out');
  t.deepEqual(callList(slices, [db], new Set(), 10), ['c', 'd', 'e', 'b'], 'only slices that can hold one of the components sought');
});

test('offers within a percent of the roomiest count as equal, and then the nearer provider is called first', (t) => {
  const slices = [slice('far', 10_000, 10_000, 3), slice('near', 9_960, 9_960, 1), slice('half', 5_000, 5_000, 0)];
  t.deepEqual(callList(slices, [api], new Set(), 3), ['near', 'far', 'half']);
  t.deepEqual(callList([slice('far', 10_000, 10_000, 3), slice('near', 9_000, 9_000, 1)], [api], new Set(), 2), ['far', 'near'], '10% less room is not equal');
});

test('white and black lists decide who may be called', (t) => {
  const slices = [slice('a', 9000, 9000), slice('b', 9000, 9000), slice('c', 9000, 9000)];
  t.deepEqual(callList(slices, [component('api', 1, 1, { clustersWhitelist: ['b', 'c'] })], new Set(), 10), ['b', 'c']);
  t.deepEqual(callList(slices, [component('api', 1, 1, { clustersBlacklist: ['a'] })], new Set(), 10), ['b', 'c']);
  t.deepEqual(callList(slices, [component('api', 1, 1, { clustersWhitelist: ['z'] })], new Set(), 10), []);
});

test('each wider round calls as many again as are called already; fanout 0 calls everyone', (t) => {
  t.is(roundSize(4, 0), 4);
  t.is(roundSize(4, 4), 4);
  t.is(roundSize(4, 8), 8);
  t.is(roundSize(0, 0), Number.POSITIVE_INFINITY);
});

const big = { cpu: 8000, memory: 16384 };
const small = { cpu: 100, memory: 128 };

function federation(specs: ClusterSpec[], mode: 'open' | 'sealed', fanout: number): SimFederation {
  const fed = new SimFederation(specs, { seed: 3, mode, fanout });
  fed.start();
  fed.run(10);
  return fed;
}

/** Every message about `app` a cluster received. */
function about(fed: SimFederation, cluster: string, app: string): DroneMessage[] {
  return (fed.received.get(cluster) ?? []).filter((m) => 'app' in m && m.app === app);
}

// Eight providers; p1 and p2 advertise the most room.
function providers(): ClusterSpec[] {
  return [
    { id: 'o', free: small, scalePercent: 100 },
    ...['p1', 'p2'].map((id) => ({ id, free: { cpu: 16000, memory: 32768 }, scalePercent: 100 })),
    ...['p3', 'p4', 'p5', 'p6', 'p7', 'p8'].map((id) => ({ id, free: big, scalePercent: 50 })),
  ];
}

test('in sealed mode the origin asks only the best-advertised providers; the others never hear of the app', (t) => {
  const fed = federation(providers(), 'sealed', 2);
  fed.submit(job('web', 'o', [component('front', 1000, 256), component('db', 1500, 1024)]));
  fed.run(200);
  const [placed] = (fed.outcomes().get('o/web') ?? []) as Array<{ type: string; placement: Record<string, string> }>;
  t.is(placed?.type, 'placed');
  for (const host of Object.values(placed?.placement ?? {})) t.true(['p1', 'p2'].includes(host), host);
  for (const id of ['p1', 'p2']) {
    t.deepEqual([...new Set(about(fed, id, 'web').map((m) => m.kind))].sort(), id === placed?.placement.front || id === placed?.placement.db ? ['advertisement', 'offload-request', 'solution'] : ['advertisement', 'solution'], id);
  }
  for (const id of ['p3', 'p4', 'p5', 'p6', 'p7', 'p8']) t.deepEqual(about(fed, id, 'web'), [], `${id} heard nothing of it`);
  const sentForWeb = fed.sent.filter((s) => 'app' in s.message && s.message.app === 'web');
  t.is(sentForWeb.filter((s) => s.message.kind === 'sealed-vote').length, 2, 'two bids, not eight');
});

test('in open mode only the bidders called hear of the app and vote, and only the origin and the other bidders hear the votes', (t) => {
  const fed = federation(providers(), 'open', 2);
  fed.submit(job('web', 'o', [component('front', 1000, 256), component('db', 1500, 1024)]));
  fed.run(200);
  t.like((fed.outcomes().get('o/web') ?? [])[0], { type: 'placed' });
  const adverts = fed.sent.filter((s) => s.message.kind === 'advertisement' && s.message.app === 'web').map((s) => s.message);
  t.deepEqual(adverts.map((m) => (m.kind === 'advertisement' ? [m.recipients, m.bidders] : [])), [[['p1', 'p2'], ['p1', 'p2']]], 'one advertisement for both bidders, naming both');
  const voters = new Set(fed.sent.filter((s) => s.message.kind === 'votes' && s.message.app === 'web').map((s) => s.from));
  t.deepEqual([...voters].sort(), ['p1', 'p2'], 'the origin, with no room of its own, does not echo them');
  for (const id of ['p3', 'p4', 'p5', 'p6', 'p7', 'p8']) t.deepEqual(about(fed, id, 'web'), [], `${id} heard nothing of it`);
  t.true(about(fed, 'p1', 'web').some((m) => m.kind === 'votes' && m.sender === 'p2'), 'the bidders hear each other');
});

for (const mode of ['open', 'sealed'] as const) {
  test(`in ${mode} mode, when those called cannot host a component, the origin calls more`, (t) => {
    // p1 and p2 advertise the most room, but will not run anything named "db".
    const specs = providers().map((s) => (s.id === 'p1' || s.id === 'p2' ? { ...s, admit: (_: string, c: { name: string }) => (c.name === 'db' ? 'no databases here' : undefined) } : s));
    const fed = federation(specs, mode, 2);
    fed.submit(job('web', 'o', [component('front', 1000, 256), component('db', 1500, 1024)]));
    fed.run(3000);
    const [placed] = (fed.outcomes().get('o/web') ?? []) as Array<{ type: string; placement: Record<string, string> }>;
    t.is(placed?.type, 'placed');
    t.false(['p1', 'p2'].includes(placed?.placement.db ?? ''), `db on ${placed?.placement.db ?? '-'}`);
    const called = new Set(fed.sent.filter((s) => s.message.kind === 'advertisement' && s.message.app === 'web').flatMap((s) => (s.message.kind === 'advertisement' ? s.message.bidders ?? s.message.recipients ?? [s.message.to ?? ''] : [])));
    t.is(called.size, 4, `called ${[...called].sort().join(', ')}: the first two, then two more`);
    t.true(fed.events.some((e) => e.cluster === placed?.placement.db && e.event.type === 'host'));
  });
}

test('in sealed mode, a provider called that never answers is passed over once the weak-agreement time is up', (t) => {
  const fed = federation(providers(), 'sealed', 1);
  fed.disconnect('p1');
  fed.submit(job('web', 'o', [component('front', 1000, 256)]));
  fed.run(1_000);
  t.is(fed.outcomes().get('o/web'), undefined, 'still waiting for p1');
  t.deepEqual(about(fed, 'p2', 'web'), [], 'p2 not called yet');
  fed.run(3_000);
  t.like((fed.outcomes().get('o/web') ?? [])[0], { type: 'placed', placement: { front: 'p2' } });
});

test('in sealed mode a job nobody can host fails once every provider whose advert could hold it was asked', (t) => {
  const specs = providers().map((s) => (s.id === 'o' ? s : { ...s, admit: () => 'closed for maintenance' }));
  const fed = federation(specs, 'sealed', 2);
  fed.submit(job('web', 'o', [component('front', 1000, 256)]));
  fed.run(20_000);
  const [failed] = (fed.outcomes().get('o/web') ?? []) as Array<{ type: string; reason: string }>;
  t.is(failed?.type, 'failed');
  t.regex(failed?.reason ?? '', /closed for maintenance|refused front/);
  const asked = new Set(fed.sent.filter((s) => s.message.kind === 'advertisement' && s.message.app === 'web').flatMap((s) => (s.message.kind === 'advertisement' ? s.message.recipients ?? [s.message.to ?? ''] : [])));
  t.is(asked.size, 8, 'every provider, two, then two more, then four');
  for (const id of ['p1', 'p3', 'p8']) t.true(about(fed, id, 'web').some((m) => m.kind === 'solution' && m.outcome === 'failed'), `${id} told`);
});

test('in open mode, a bidder that hears another bidder\'s votes before its own advertisement counts them once the advertisement comes', (t) => {
  const b = new DroneCore({ cluster: 'b', mode: 'open', scalePercent: 100, weights: new Map(), ...DEFAULT_TIMERS }, { cpu: 1_000_000, memory: 1_000_000 });
  const envelope = (sender: string, id: string, timestamp: number): { v: 1; id: string; sender: string; timestamp: number; hops: number } => ({ v: 1, id, sender, timestamp, hops: 1 });
  t.deepEqual(b.tick(0).messages.map((m) => m.body.kind), ['slice-advert']);
  // c heard the advertisement first and votes 100 for api; its votes overtake b's advertisement.
  const early = b.receive({ ...envelope('c', 'c.1', 5), kind: 'votes', to: 'b', app: 'web', baseCluster: 'a', entries: [{ component: 'api', cluster: 'c', value: 100, timestamp: 5 }], winners: { api: 'c' }, round: 1 }, 10);
  t.deepEqual(early.messages, [], 'nothing to say about an app it has not heard of');
  const out = b.receive({ ...envelope('a', 'a.1', 1), kind: 'advertisement', to: 'b', type: 'ADD', app: 'web', baseCluster: 'a', components: [api], sealed: false, bidders: ['b', 'c'] }, 11);
  const votes = out.messages.map((m) => m.body).filter((m) => m.kind === 'votes');
  t.deepEqual(out.messages.filter((m) => m.body.kind === 'votes').map((m) => m.recipients), [['a']], 'b holds no vote: it reports to the origin alone (c has nothing to learn from it)');
  // An equal vote: the older one (c's) wins, so b does not take api from c.
  t.deepEqual(votes[0]?.winners, { api: 'c' });
  t.false(votes[0]?.entries.some((e) => e.cluster === 'b' && e.value > 0));
});

test('in open mode the origin does not wait for the release of a bidder outbid by a vote of 100; it waits when the winning vote is lower', (t) => {
  const envelope = (sender: string, id: string, timestamp: number): { v: 1; id: string; sender: string; timestamp: number; hops: number } => ({ v: 1, id, sender, timestamp, hops: 1 });
  const run = (cVote: number): { early: DroneMessage['kind'][]; late: DroneMessage['kind'][] } => {
    const o = new DroneCore({ cluster: 'o', mode: 'open', scalePercent: 100, weights: new Map(), ...DEFAULT_TIMERS, fanout: 2 }, { cpu: 0, memory: 0 });
    o.tick(0);
    for (const p of ['b', 'c']) o.receive({ ...envelope(p, `${p}.advert`, 1), kind: 'slice-advert', offered: { cpu: 8000, memory: 8000 }, seq: 1, ttlMs: 15_000 }, 1);
    const called = o.submit(job('web', 'o', [api]), 2);
    t.deepEqual(called.messages.map((m) => [m.body.kind, m.recipients]), [['advertisement', ['b', 'c']]]);
    // c voted first; b voted before it heard c's vote, so it still names itself.
    o.receive({ ...envelope('c', 'c.1', 3), kind: 'votes', recipients: ['b', 'o'], app: 'web', baseCluster: 'o', entries: [{ component: 'api', cluster: 'c', value: cVote, timestamp: 3 }], winners: { api: 'c' }, round: 1 }, 4);
    const early = o.receive({ ...envelope('b', 'b.1', 4), kind: 'votes', recipients: ['c', 'o'], app: 'web', baseCluster: 'o', entries: [{ component: 'api', cluster: 'b', value: 80, timestamp: 4 }], winners: { api: 'b' }, round: 1 }, 5);
    // b's release, once it heard c's vote.
    const late = o.receive({ ...envelope('b', 'b.2', 6), kind: 'votes', recipients: ['c', 'o'], app: 'web', baseCluster: 'o', entries: [{ component: 'api', cluster: 'b', value: 0, timestamp: 6 }, { component: 'api', cluster: 'c', value: cVote, timestamp: 3 }], winners: { api: 'c' }, round: 2 }, 7);
    return { early: early.messages.map((m) => m.body.kind), late: late.messages.map((m) => m.body.kind) };
  };
  t.deepEqual(run(100), { early: ['offload-request'], late: [] }, 'c\'s 100 cannot be outbid: b can only let go');
  t.deepEqual(run(90), { early: [], late: ['offload-request'] }, 'c\'s 90 could still move: b\'s word is awaited');
});

test('in open mode a bidder tells the other bidders only what is new to them: its own votes, a release they cannot see otherwise, or everything when the app is announced again', (t) => {
  const envelope = (sender: string, id: string, timestamp: number): { v: 1; id: string; sender: string; timestamp: number; hops: number } => ({ v: 1, id, sender, timestamp, hops: 1 });
  const b = new DroneCore({ cluster: 'b', mode: 'open', scalePercent: 100, weights: new Map(), ...DEFAULT_TIMERS }, { cpu: 1_000_000, memory: 1_000_000 });
  b.tick(0);
  const advert = (id: string): DroneMessage => ({ ...envelope('a', id, 1), kind: 'advertisement', recipients: ['b', 'c', 'd'], type: 'ADD', app: 'web', baseCluster: 'a', components: [api, db], sealed: false, bidders: ['b', 'c', 'd'] });
  const votes = (sender: string, component: string, timestamp: number): DroneMessage => ({ ...envelope(sender, `${sender}.${component}.${timestamp}`, timestamp), kind: 'votes', recipients: ['a', 'b', 'c', 'd'].filter((r) => r !== sender), app: 'web', baseCluster: 'a', entries: [{ component, cluster: sender, value: 100, timestamp }], winners: { [component]: sender }, round: timestamp });
  const votesTo = (messages: Output['messages']): Array<readonly string[] | undefined> => messages.filter((m) => m.body.kind === 'votes').map((m) => m.recipients);
  const own = (out: Output, component: string): number[] => out.messages.flatMap((m) => (m.body.kind === 'votes' ? m.body.entries : [])).filter((e) => e.cluster === 'b' && e.component === component).map((e) => e.value);
  const first = b.receive(advert('a.1'), 10);
  t.deepEqual(votesTo(first.messages), [['a', 'c', 'd']], 'its votes (api first, then db): the origin and the other bidders');
  // c voted 100 for api before b did: b lets api go, and db with it (it was added after api), then takes db again.
  const cascade = b.receive(votes('c', 'api', 2), 12);
  t.deepEqual(own(cascade, 'api'), [0]);
  t.true(own(cascade, 'db').some((v) => v > 0), 'db voted again');
  t.deepEqual(votesTo(cascade.messages), [['a', 'c', 'd']], 'a new vote for db: everyone hears it');
  // d voted 100 for db before b's new vote: d's vote, which every bidder hears from d, beats b's.
  const outvoted = b.receive(votes('d', 'db', 3), 14);
  t.deepEqual(own(outvoted, 'db'), [0], 'b lets db go');
  t.deepEqual(votesTo(outvoted.messages), [['a']], 'a release that the winning vote already tells: the origin alone hears it');
  // c's vote for db is older still: b's view of the winners moves, its own votes stand.
  const moved = b.receive(votes('c', 'db', 1), 16);
  t.deepEqual(votesTo(moved.messages), [['a']], 'only its view of the winners moved: the origin alone hears it');
  t.deepEqual(votesTo(b.receive(advert('a.2'), 16 + DEFAULT_TIMERS.gossipMs).messages), [['a', 'c', 'd']], 'announced again: everyone hears it again');
});
