// Reclaim (README.md, "Reclaim"): the decision is a function of the offers alone, never moves a
// launched component, and a move leaves every component placed exactly once, under message loss,
// duplication and reordering. Pure core: the decision and offers directly, the protocol in the
// simulated federation.
import test from 'ava';
import fc from 'fast-check';
import { decideReclaim, type ReclaimDecision, type ReclaimOffer } from '../../controller/drone/core/reclaim-decide.ts';
import { offerOf } from '../../controller/drone/core/reclaim-offers.ts';
import { DEFAULT_TIMERS } from '../../controller/drone/agent-core.ts';
import { DEFAULT_RECLAIM_MOVES, newCore } from '../../controller/drone/core/state.ts';
import { add, fits, subtract, type Job, type Resources } from '../../controller/drone/model.ts';
import { SimFederation, type ClusterSpec, type Faults } from './support/network.ts';
import { placedOnce } from './support/placed-once.ts';

const SETTLE_MS = 10_000;
const units = (n: number): Resources => ({ cpu: n * 250, memory: n * 256 });
const need = fc.integer({ min: 1, max: 6 }).map(units);

function job(app: string, origin: string, needs: readonly Resources[]): Job {
  return { app, origin, components: needs.map((resources, i) => ({ name: `p${String(i)}`, image: 'registry.example/i:1', resources })) };
}

interface ClusterCase { readonly id: string; readonly offer: ReclaimOffer; readonly pinned: readonly string[] }

/** A cluster's state with hosted components (some launched and pinned), and the offer it makes. */
const clusterArb = (id: string, ids: readonly string[]): fc.Arbitrary<ClusterCase> => fc.record({
  free: fc.integer({ min: 0, max: 12 }).map(units),
  scale: fc.constantFrom(50, 75, 100),
  hosted: fc.array(fc.record({ origin: fc.constantFrom(...ids), size: need, pinned: fc.boolean() }), { maxLength: 4 }),
}).map(({ free, scale, hosted }) => {
  const state = newCore({ cluster: id, mode: 'open', scalePercent: scale, weights: new Map(), ...DEFAULT_TIMERS }, free);
  hosted.forEach((h, i) => {
    state.ledger.hostOwn({ origin: h.origin, app: `a-${id}-${String(i)}`, component: 'p0', resources: h.size }, 0);
    if (h.pinned) state.ledger.pin(h.origin, `a-${id}-${String(i)}`, 'p0');
  });
  return { id, offer: offerOf(state), pinned: hosted.flatMap((h, i) => (h.pinned ? [`${h.origin}/a-${id}-${String(i)}/p0`] : [])) };
});

const federationArb = fc.integer({ min: 2, max: 5 }).chain((n) => {
  const ids = Array.from({ length: n }, (_, i) => `c${String(i)}`);
  return fc.tuple(fc.tuple(...ids.map((id) => clusterArb(id, ids))), fc.constantFrom(...ids), fc.array(need, { minLength: 1, maxLength: 2 }));
});
type Federation = typeof federationArb extends fc.Arbitrary<infer T> ? T : never;
/** A seed whose 300 federations include some that need two moves (checked below). */
const SAMPLE_SEED = 1;

/**
 * The hard limits along the decision: each move admitted by its target while the components still
 * to leave it are there (make before break), then the job; every cluster within what it has free,
 * and foreign work within its slice, at every step.
 */
function respectsLimits(offers: readonly ReclaimOffer[], origin: string, needs: readonly Resources[], d: ReclaimDecision): boolean {
  const left = new Map(offers.map((o) => [o.cluster, { room: o.room, free: o.free }]));
  const zero = { cpu: 0, memory: 0 };
  const within = (): boolean => [...left.values()].every((l) => fits(zero, l.free) && fits(zero, l.room));
  const take = (at: string, from: string, r: Resources, sign: 1 | -1): void => {
    const l = left.get(at);
    if (l === undefined) return;
    l.free = sign === 1 ? subtract(l.free, r) : add(l.free, r);
    if (from !== at) l.room = sign === 1 ? subtract(l.room, r) : add(l.room, r);
  };
  for (const m of d.moves) {
    take(m.to, m.origin, m.resources, 1);
    if (!within()) return false;
    take(m.from, m.origin, m.resources, -1);
  }
  needs.forEach((r, i) => { take(d.placement[`p${String(i)}`] ?? '', origin, r, 1); });
  return within();
}

test('decision: never moves a launched (pinned) component, moves at most `limit` distinct ones, and each step respects every hard limit', (t) => {
  fc.assert(fc.property(federationArb, ([clusters, origin, needs]) => {
    const offers = clusters.map((c) => c.offer);
    const pinned = new Set(clusters.flatMap((c) => c.pinned));
    for (const limit of [0, 1, 2, 3]) {
      const d = decideReclaim(job('j', origin, needs), offers, limit);
      if (d === undefined) continue;
      if (d.moves.length > limit) return false;
      if (new Set(d.moves.map((m) => `${m.origin}/${m.app}/${m.component}`)).size !== d.moves.length) return false;
      if (d.moves.some((m) => pinned.has(`${m.origin}/${m.app}/${m.component}`) || m.to === m.from)) return false;
      if (!respectsLimits(offers, origin, needs, d)) return false;
    }
    return true;
  }), { numRuns: 300 });
  t.pass();
});

test('decision: never more moves than needed: a job that can be placed with fewer moves gets that decision whatever the limit', (t) => {
  let multi = 0;
  const sameFromFirst = ([clusters, origin, needs]: Federation): boolean => {
    const offers = clusters.map((c) => c.offer);
    const j = job('j', origin, needs);
    const byLimit = [0, 1, 2, 3].map((limit) => decideReclaim(j, offers, limit));
    if ((byLimit[2]?.moves.length ?? 0) >= 2) multi += 1;
    // once a limit finds a decision, every higher limit returns the same one
    return byLimit.every((d, i) => i === 0 || byLimit[i - 1] === undefined || JSON.stringify(d) === JSON.stringify(byLimit[i - 1]));
  };
  fc.assert(fc.property(federationArb, sameFromFirst), { numRuns: 300 });
  // federations that need two moves are drawn now and then, not in every 300 (a run drew none):
  // a fixed sample that holds some shows the property is checked on them too
  multi = 0;
  for (const federation of fc.sample(federationArb, { seed: SAMPLE_SEED, numRuns: 300 })) t.true(sameFromFirst(federation));
  t.true(multi > 0, `${String(multi)} of 300 decisions in the fixed sample moved two components`);
});

test('decision: the same on every cluster for the same offers, in any order', (t) => {
  fc.assert(fc.property(federationArb, fc.integer(), ([clusters, origin, needs], seed) => {
    const offers = clusters.map((c) => c.offer);
    const shuffled = fc.sample(fc.shuffledSubarray(offers, { minLength: offers.length, maxLength: offers.length }), { seed, numRuns: 1 })[0] ?? offers;
    const reordered = shuffled.map((o) => ({ ...o, movable: [...o.movable].reverse() }));
    return [1, 2, 3].every((limit) => JSON.stringify(decideReclaim(job('j', origin, needs), offers, limit)) === JSON.stringify(decideReclaim(job('j', origin, needs), reordered, limit)));
  }), { numRuns: 300 });
  t.pass();
});

test('decision: a job that fits as is moves nothing; one that fits nowhere even after a move moves nothing', (t) => {
  const offer = (cluster: string, free: number, movable: ReclaimOffer['movable'] = []): ReclaimOffer => ({ cluster, room: units(free), free: units(free), movable });
  t.deepEqual(decideReclaim(job('j', 'o', [units(2)]), [offer('o', 0), offer('a', 2)], 1), { placement: { p0: 'a' }, moves: [] });
  t.is(decideReclaim(job('j', 'o', [units(9)]), [offer('o', 0), offer('a', 4, [{ origin: 'x', app: 'k', component: 'p0', resources: units(4) }])], 1), undefined);
  const moved = decideReclaim(job('j', 'o', [units(4)]), [offer('o', 0), offer('a', 2, [{ origin: 'x', app: 'k', component: 'p0', resources: units(2) }]), offer('b', 2)], 1);
  t.deepEqual(moved, { placement: { p0: 'a' }, moves: [{ origin: 'x', app: 'k', component: 'p0', resources: units(2), from: 'a', to: 'b' }] });
});

test('decision: a chain of two moves, made in the order in which each fits (the second target is freed by the first move)', (t) => {
  const x = { origin: 'p', app: 'x', component: 'p0', resources: units(2) };
  const y = { origin: 'q', app: 'y', component: 'p0', resources: units(1) };
  const offers: ReclaimOffer[] = [
    { cluster: 'o', room: units(0), free: units(0), movable: [] },
    { cluster: 'a', room: units(2), free: units(2), movable: [x] },
    { cluster: 'b', room: units(1), free: units(1), movable: [y] },
    { cluster: 'c', room: units(1), free: units(1), movable: [] },
  ];
  t.is(decideReclaim(job('j', 'o', [units(4)]), offers, 1), undefined);
  t.deepEqual(decideReclaim(job('j', 'o', [units(4)]), offers, 2), { placement: { p0: 'a' }, moves: [{ ...y, from: 'b', to: 'c' }, { ...x, from: 'a', to: 'b' }] });
});

// o has no room; a holds p's small component, b runs its own large one, c has just room for the small one.
const FULL: ClusterSpec[] = [
  { id: 'o', free: units(0), scalePercent: 100 },
  { id: 'p', free: units(0), scalePercent: 100 },
  { id: 'a', free: units(4), scalePercent: 100 },
  { id: 'b', free: units(4), scalePercent: 100 },
  { id: 'c', free: units(0), scalePercent: 100 },
];

/** The federation full: p's small component on a (the only room then), b's large one at home, then c gets room for the small one. */
function fullFederation(mode: 'open' | 'sealed', faults?: Faults, seed = 1): SimFederation {
  const fed = new SimFederation(FULL, { seed, mode, ...(faults === undefined ? {} : { faults }) });
  fed.start();
  fed.run(10);
  fed.submit(job('large-b', 'b', [units(4)]));
  fed.submit(job('small', 'p', [units(2)]));
  fed.run(fed.now + SETTLE_MS);
  fed.setResources('c', units(2));
  fed.run(fed.now + SETTLE_MS);
  return fed;
}

for (const mode of ['open', 'sealed'] as const) {
  test(`${mode}: a job arriving to a full federation fails, then reclaim moves one component and places it`, (t) => {
    const fed = fullFederation(mode);
    t.deepEqual(fed.agent('p').placement('small'), { p0: 'a' });
    fed.submit(job('large', 'o', [units(4)]));
    fed.run(fed.now + SETTLE_MS);
    t.is(fed.outcomes().get('o/large')?.[0]?.type, 'failed');
    fed.reclaim(job('large-r', 'o', [units(4)]));
    fed.run(fed.now + SETTLE_MS);
    t.like(fed.outcomes().get('o/large-r')?.[0], { type: 'placed', placement: { p0: 'a' } });
    t.deepEqual(fed.agent('p').placement('small'), { p0: 'c' });
    t.is(fed.events.filter((e) => e.event.type === 'moved').length, 1);
    t.is(placedOnce(fed, [['p', 'small'], ['b', 'large-b'], ['o', 'large-r']]), undefined);
  });

  test(`${mode}: a launched component whose deployment does not allow moving stays, and the job fails with nothing moved`, (t) => {
    const fed = fullFederation(mode);
    fed.agent('a').launched({ origin: 'p', app: 'small', component: 'p0', movable: false }, fed.now);
    fed.agent('p').launched({ origin: 'p', app: 'small', component: 'p0', movable: false }, fed.now);
    fed.agent('b').launched({ origin: 'b', app: 'large-b', component: 'p0', movable: false }, fed.now);
    fed.reclaim(job('large-r', 'o', [units(4)]));
    fed.run(fed.now + SETTLE_MS);
    t.regex((fed.outcomes().get('o/large-r')?.[0] as { reason?: string } | undefined)?.reason ?? '', /no placement with at most 3 moves/);
    t.deepEqual(fed.agent('p').placement('small'), { p0: 'a' });
    t.is(fed.events.filter((e) => e.event.type === 'moved').length, 0);
  });
}

test('bad reclaims are refused with what to fix: another origin, an app placed or being reclaimed', (t) => {
  const fed = fullFederation('open');
  t.throws(() => fed.agent('o').reclaim(job('x', 'p', [units(1)]), fed.now), { message: /origin is p, but this agent is o/ });
  t.throws(() => fed.agent('p').reclaim(job('small', 'p', [units(1)]), fed.now), { message: /small is placed already/ });
  fed.reclaim(job('large-r', 'o', [units(4)]));
  t.throws(() => fed.agent('o').reclaim(job('large-r', 'o', [units(4)]), fed.now), { message: /already being reclaimed/ });
});

test('an app withdrawn while its component is being moved: the move is refused and no cluster keeps the component', (t) => {
  const fed = fullFederation('open');
  fed.reclaim(job('large-r', 'o', [units(4)]));
  // call, offers, decision, then the move request reaches p and p asks c
  const asked = (): boolean => fed.sent.some((m) => m.from === 'p' && m.message.kind === 'offload-request' && m.message.requestId.includes('.move.'));
  for (let i = 0; i < 50 && !asked(); i += 1) fed.run(fed.now + 1);
  t.true(asked());
  fed.withdraw('p', 'small');
  fed.run(fed.now + SETTLE_MS);
  t.regex((fed.outcomes().get('o/large-r')?.[0] as { reason?: string } | undefined)?.reason ?? '', /withdrawn during the move/);
  t.deepEqual(placedOnce(fed, [['b', 'large-b']]), undefined);
  t.false([...fed.agents.values()].some((a) => a.hosted().some((h) => h.app === 'small')));
  t.is(fed.events.filter((e) => e.event.type === 'moved').length, 0);
});

test('a launched component whose deployment allows moving is moved', (t) => {
  const fed = fullFederation('open');
  fed.agent('a').launched({ origin: 'p', app: 'small', component: 'p0', movable: true }, fed.now);
  fed.reclaim(job('large-r', 'o', [units(4)]));
  fed.run(fed.now + SETTLE_MS);
  t.is(fed.outcomes().get('o/large-r')?.[0]?.type, 'placed');
  t.deepEqual(fed.agent('p').placement('small'), { p0: 'c' });
});

test('a launched component follows its deployment\'s movable as it changes: pinned, unpinned, pinned again, at host and origin', (t) => {
  const fed = fullFederation('sealed');
  const tell = (movable: boolean): void => {
    fed.agent('a').launched({ origin: 'p', app: 'small', component: 'p0', movable }, fed.now);
    fed.agent('p').launched({ origin: 'p', app: 'small', component: 'p0', movable }, fed.now);
  };
  const pinned = (): boolean | undefined => fed.agent('a').hosted().find((h) => h.app === 'small')?.pinned;
  tell(false);
  t.true(pinned());
  tell(true);
  t.false(pinned());
  tell(false);
  t.true(pinned(), 'pinned again');
  fed.reclaim(job('large-r1', 'o', [units(4)]));
  fed.run(fed.now + SETTLE_MS);
  t.is(fed.outcomes().get('o/large-r1')?.[0]?.type, 'failed');
  t.deepEqual(fed.agent('p').placement('small'), { p0: 'a' });
  tell(true);
  fed.reclaim(job('large-r2', 'o', [units(4)]));
  fed.run(fed.now + SETTLE_MS);
  t.is(fed.outcomes().get('o/large-r2')?.[0]?.type, 'placed');
  t.deepEqual(fed.agent('p').placement('small'), { p0: 'c' });
});

test('under drops, duplicates and reordering, no component is ever lost during a move, each ends placed once, and the job ends once', (t) => {
  let movedRuns = 0;
  const faults = fc.record({ drop: fc.double({ min: 0, max: 0.3, noNaN: true }), duplicate: fc.double({ min: 0, max: 0.3, noNaN: true }), reorder: fc.double({ min: 0, max: 0.3, noNaN: true }), delayMs: fc.integer({ min: 0, max: 20 }) });
  fc.assert(fc.property(faults, fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom('open' as const, 'sealed' as const), (f, seed, mode) => {
    const fed = fullFederation(mode, f, seed);
    const apps = [['p', 'small'], ['b', 'large-b'], ['o', 'large-r']] as const;
    const during: string[] = [];
    fed.onStep(() => { const why = placedOnce(fed, apps, true); if (why !== undefined) during.push(why); });
    fed.reclaim(job('large-r', 'o', [units(4)]));
    fed.run(fed.now + 4 * SETTLE_MS);
    const ends = fed.outcomes().get('o/large-r') ?? [];
    const moves = fed.events.filter((e) => e.event.type === 'moved').length;
    // (the faults also hit the set-up, so the job may fit without a move, or the small one may have failed)
    const ok = during.length === 0 && placedOnce(fed, apps) === undefined && ends.length === 1 && moves <= DEFAULT_RECLAIM_MOVES;
    if (!ok) t.log(JSON.stringify({ f, seed, mode, during: during.slice(0, 3), end: placedOnce(fed, apps), ends, moves }));
    movedRuns += moves;
    return ok;
  }), { numRuns: 120 });
  // the faults are not so heavy that moves never happen
  t.true(movedRuns > 40, `${String(movedRuns)} of 120 runs moved a component`);
});

test('a job with offload is reclaimed onto a neighbour only, never its origin, as the auction would', (t) => {
  const clusters: ClusterSpec[] = [{ id: 'a', free: units(2), scalePercent: 100 }, { id: 'b', free: units(2), scalePercent: 100 }];
  const fed = new SimFederation(clusters, { seed: 1, mode: 'open' });
  fed.start();
  fed.run(fed.now + SETTLE_MS);
  fed.reclaim({ ...job('away', 'a', [units(1)]), offload: true });
  fed.reclaim(job('home', 'a', [units(1)]));
  fed.run(fed.now + SETTLE_MS);
  t.is(fed.outcomes().get('a/away')?.[0]?.type, 'placed');
  t.deepEqual(fed.agent('a').placement('away'), { p0: 'b' });
  t.deepEqual(fed.agent('a').placement('home'), { p0: 'a' }, 'without offload the origin is a host like any (clusters by id)');
});
