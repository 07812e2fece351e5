import test from 'ava';
import { roomFor, shares, type CapacityView } from '../../controller/drone/auction/budget.ts';
import { utility, vote } from '../../controller/drone/auction/utility.ts';
import { VoteTable } from '../../controller/drone/auction/vote-table.ts';
import { DroneCore, DEFAULT_TIMERS } from '../../controller/drone/agent-core.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { SimFederation, type ClusterSpec } from './support/network.ts';
import { component, job } from './support/jobs.ts';

const small = { cpu: 500, memory: 512 };
const big = { cpu: 8000, memory: 16384 };

function federation(specs: ReadonlyArray<[string, { cpu: number; memory: number }, number]>, mode: 'open' | 'sealed' = 'open', seed = 1): SimFederation {
  const clusters: ClusterSpec[] = specs.map(([id, free, scalePercent]) => ({ id, free, scalePercent }));
  const fed = new SimFederation(clusters, { seed, mode });
  fed.start();
  fed.run(10);
  return fed;
}

function outcome(fed: SimFederation, origin: string, app: string): unknown {
  return fed.outcomes().get(`${origin}/${app}`);
}

test('utility falls as the cluster fills and a vote never rises along one app', (t) => {
  const capacity = { cpu: 1000, memory: 1000 };
  t.is(utility({ cpu: 100, memory: 100 }, capacity, capacity), 90);
  t.is(utility({ cpu: 100, memory: 100 }, { cpu: 500, memory: 1000 }, capacity), 40);
  t.is(utility({ cpu: 600, memory: 100 }, { cpu: 500, memory: 1000 }, capacity), 0, 'no vote when it does not fit');
  t.is(vote(70, [40, 55]), 40);
  t.is(vote(30, [40]), 30);
});

test('the highest vote wins; a tie goes to the older vote, then to the smaller cluster id', (t) => {
  const table = new VoteTable();
  table.put('db', { cluster: 'b', value: 50, timestamp: 5 });
  table.put('db', { cluster: 'a', value: 50, timestamp: 5 });
  t.is(table.winner('db')?.cluster, 'a');
  table.put('db', { cluster: 'c', value: 50, timestamp: 3 });
  t.is(table.winner('db')?.cluster, 'c');
  table.put('db', { cluster: 'b', value: 60, timestamp: 9 });
  t.is(table.winner('db')?.cluster, 'b');
  t.false(table.put('db', { cluster: 'b', value: 99, timestamp: 8 }), 'an older vote never replaces a newer one');
  t.true(table.merge([{ component: 'db', cluster: 'b', value: 0, timestamp: 10 }], 'a'), 'a release is a newer vote');
  t.is(table.winner('db')?.cluster, 'c');
});

test("an origin's share of a provider's slice follows the neighbour weights when several origins ask", (t) => {
  const view: CapacityView = {
    self: 'p', free: { cpu: 8000, memory: 8000 }, offered: { cpu: 4000, memory: 4000 }, hosted: [], held: [],
    demand: new Map([['x', { cpu: 4000, memory: 4000 }], ['y', { cpu: 4000, memory: 4000 }]]),
    weights: new Map([['x', 1], ['y', 3]]),
  };
  const deserved = shares(view);
  t.deepEqual(roomFor(view, 'x', deserved), { cpu: 1000, memory: 1000 });
  t.deepEqual(roomFor(view, 'y', deserved), { cpu: 3000, memory: 3000 });
  t.deepEqual(roomFor(view, 'p', deserved), { cpu: 8000, memory: 8000 }, 'its own apps may use everything free');
});

test('a job that fits at its origin is placed there without an auction (local first)', (t) => {
  const fed = federation([['a', big, 50], ['b', big, 50]]);
  const before = fed.sent.length;
  fed.submit(job('web', 'a', [component('api', 1000, 512)]));
  fed.run(100);
  t.deepEqual(outcome(fed, 'a', 'web'), [{ type: 'placed', app: 'web', origin: 'a', placement: { api: 'a' } }]);
  t.deepEqual(fed.sent.slice(before).map((s) => s.message.kind).filter((k) => k !== 'slice-advert'), []);
});

for (const mode of ['open', 'sealed'] as const) {
  test(`in ${mode} mode a job the origin cannot host is offloaded to clusters with room, and they host it`, (t) => {
    const fed = federation([['a', small, 100], ['b', { cpu: 4000, memory: 8192 }, 50], ['c', big, 50]], mode);
    fed.submit(job('web', 'a', [component('front', 1000, 256), component('db', 1500, 1024)]));
    fed.run(100);
    const [placed] = (outcome(fed, 'a', 'web') ?? []) as Array<{ type: string; placement: Record<string, string> }>;
    t.is(placed?.type, 'placed');
    for (const [name, host] of Object.entries(placed?.placement ?? {})) t.true(fed.agent(host).hosted().some((h) => h.component === name && h.origin === 'a'), `${name} on ${host}`);
    t.false(Object.values(placed?.placement ?? {}).includes('a'));
  });

  test(`in ${mode} mode a job no cluster can host fails with a reason naming the component`, (t) => {
    const fed = federation([['a', small, 100], ['b', small, 100]], mode);
    fed.submit(job('web', 'a', [component('huge', 64000, 256)]));
    fed.run(5000);
    const [failed] = (outcome(fed, 'a', 'web') ?? []) as Array<{ type: string; reason: string }>;
    t.is(failed?.type, 'failed');
    t.regex(failed?.reason ?? '', /no cluster could host huge/);
  });
}

test('a job that asks to be offloaded leaves its origin even when it would fit there', (t) => {
  const fed = federation([['a', big, 50], ['b', big, 50]]);
  fed.submit(job('web', 'a', [component('api', 1000, 512)], { offload: true }));
  fed.run(100);
  t.like((outcome(fed, 'a', 'web') as unknown[])[0], { type: 'placed', placement: { api: 'b' } });
});

const lists = [
  { name: 'a whitelist sends a component only where it allows', extra: { clustersWhitelist: ['c'] }, host: 'c' },
  { name: 'a blacklist keeps a component away from the clusters it names', extra: { clustersBlacklist: ['c'] }, host: 'b' },
];
for (const l of lists) {
  test(l.name, (t) => {
    const fed = federation([['a', small, 100], ['b', { cpu: 4000, memory: 4096 }, 100], ['c', big, 100]]);
    fed.submit(job('web', 'a', [component('api', 1000, 512, l.extra)]));
    fed.run(100);
    t.like((outcome(fed, 'a', 'web') as unknown[])[0], { type: 'placed', placement: { api: l.host } });
  });
}

test('a cluster that vanished stops being offered work once its slice advert expires', (t) => {
  const fed = federation([['a', small, 100], ['b', big, 100], ['c', { cpu: 3000, memory: 4096 }, 100]]);
  t.deepEqual(fed.agent('a').providers(fed.now), ['b', 'c']);
  fed.disconnect('b');
  fed.run(10 + DEFAULT_TIMERS.advertTtlMs + 1);
  t.deepEqual(fed.agent('a').providers(fed.now), ['c']);
  fed.submit(job('web', 'a', [component('api', 1000, 512)]));
  fed.run(fed.now + 100);
  t.like((outcome(fed, 'a', 'web') as unknown[])[0], { type: 'placed', placement: { api: 'c' } });
});

test('in sealed mode votes go only to the origin: no cluster ever receives a competitor\'s vote', (t) => {
  const fed = federation([['a', small, 100], ['b', big, 50], ['c', big, 50], ['d', big, 50]], 'sealed');
  fed.submit(job('web', 'a', [component('front', 1000, 256), component('db', 1500, 1024)]));
  fed.run(100);
  t.like((outcome(fed, 'a', 'web') as unknown[])[0], { type: 'placed' });
  t.true(fed.sent.some((s) => s.message.kind === 'sealed-vote'));
  t.false(fed.sent.some((s) => s.message.kind === 'votes'), 'no vote table is broadcast');
  for (const id of ['b', 'c', 'd']) t.false(fed.received.get(id)?.some((m) => m.kind === 'sealed-vote' || m.kind === 'votes'), id);
});

test('the same inputs and seed give the same run, message for message', (t) => {
  const run = (): string => {
    const fed = new SimFederation([
      { id: 'a', free: small, scalePercent: 100 }, { id: 'b', free: big, scalePercent: 40 }, { id: 'c', free: big, scalePercent: 60 },
    ], { seed: 42, faults: { drop: 0.1, duplicate: 0.1, reorder: 0.2, delayMs: 10 } });
    fed.start();
    fed.run(10);
    fed.submit(job('web', 'a', [component('front', 1000, 256), component('db', 1500, 1024)]));
    fed.submit(job('etl', 'b', [component('worker', 3000, 2048)], { offload: true }));
    fed.run(5000);
    return JSON.stringify({ sent: fed.sent, events: fed.events });
  };
  t.is(run(), run());
});

test('when local demand returns, hosted components above the smaller slice are released and the origin told (DEL_ACK)', (t) => {
  const fed = federation([['a', small, 100], ['b', { cpu: 4000, memory: 4096 }, 100]]);
  fed.submit(job('web', 'a', [component('front', 1000, 256), component('db', 1500, 1024)]));
  fed.run(100);
  t.is(fed.agent('b').hosted().length, 2);
  fed.setResources('b', { cpu: 1500, memory: 4096 });
  fed.run(200);
  t.deepEqual(fed.agent('b').hosted().map((h) => h.component), ['front']);
  t.true(fed.events.some((e) => e.cluster === 'b' && e.event.type === 'release' && e.event.component === 'db'));
  t.true(fed.events.some((e) => e.cluster === 'a' && e.event.type === 'acknowledged' && e.event.typeAck === 'DEL_ACK' && e.event.component === 'db'));
});

test('an origin that withdraws an app gets its components released by the hosts (DEL, DEL_ACK)', (t) => {
  const fed = federation([['a', small, 100], ['b', big, 100]]);
  fed.submit(job('web', 'a', [component('api', 1000, 256)]));
  fed.run(100);
  t.is(fed.agent('b').hosted().length, 1);
  const out = fed.withdraw('a', 'web');
  t.true(out.messages.some((m) => m.body.kind === 'advertisement' && m.body.type === 'DEL'));
  fed.run(300);
  t.is(fed.agent('b').hosted().length, 0);
  t.true(fed.events.some((e) => e.cluster === 'a' && e.event.type === 'acknowledged' && e.event.typeAck === 'DEL_ACK'));
});

const badJobs = [
  { what: 'a job without components', job: { app: 'web', origin: 'a', components: [] }, message: /job\.components/ },
  { what: 'a component with negative cpu', job: { app: 'web', origin: 'a', components: [{ name: 'x', image: 'i', resources: { cpu: -1, memory: 1 } }] }, message: /resources\.cpu must be >= 0/ },
  { what: 'a job submitted at another cluster', job: { app: 'web', origin: 'b', components: [{ name: 'x', image: 'i', resources: { cpu: 1, memory: 1 } }] }, message: /origin is b, but this agent is a/ },
];
for (const b of badJobs) {
  test(`${b.what} is refused with an error that says what to fix`, (t) => {
    const core = new DroneCore({ cluster: 'a', mode: 'open', scalePercent: 50, weights: new Map(), ...DEFAULT_TIMERS }, big);
    const err = t.throws(() => core.submit(b.job as never, 0));
    t.true(isEdgeshifuError(err, 'invalid'));
    t.regex(err.message, b.message);
  });
}

test('withdrawing an app placed at its origin releases its components there', (t) => {
  const fed = federation([['a', big, 50], ['b', big, 50]]);
  fed.submit(job('web', 'a', [component('api', 1000, 512)]));
  fed.run(50);
  t.is(fed.agent('a').hosted().length, 1);
  const out = fed.withdraw('a', 'web');
  t.deepEqual(out.events, [{ type: 'release', app: 'web', origin: 'a', component: 'api', reason: 'withdrawn by its origin' }]);
  t.is(fed.agent('a').hosted().length, 0);
});
