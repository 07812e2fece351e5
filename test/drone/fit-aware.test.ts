// Placement quality means of the auction (README.md, "Placement quality"): the fit-aware vote
// (spread while there is room, pack under pressure) and the sealed origin's cover of what the
// providers left. Pure core, in the simulated federation.
import test from 'ava';
import fc from 'fast-check';
import { fitAware, MAX_VOTE, PACK_BELOW } from '../../controller/drone/auction/utility.ts';
import type { Job, Resources } from '../../controller/drone/model.ts';
import { SimFederation, type ClusterSpec } from './support/network.ts';

const SETTLE_MS = 10_000;

function job(app: string, origin: string, needs: ReadonlyArray<readonly [string, Resources]>): Job {
  return { app, origin, components: needs.map(([name, resources]) => ({ name, image: 'registry.example/i:1', resources })) };
}

/** Submits the jobs one after another, each once the previous one settled; the placements by app. */
function oneByOne(clusters: readonly ClusterSpec[], mode: 'open' | 'sealed', jobs: readonly Job[]): Map<string, Readonly<Record<string, string>> | string> {
  const fed = new SimFederation(clusters, { seed: 1, mode });
  fed.start();
  fed.run(10);
  for (const j of jobs) {
    fed.submit(j);
    fed.run(fed.now + SETTLE_MS);
  }
  const out = new Map<string, Readonly<Record<string, string>> | string>();
  for (const [key, events] of fed.outcomes()) {
    const e = events[0];
    if (events.length !== 1 || e === undefined) throw new Error(`${key} ended ${String(events.length)} times`);
    out.set(key, e.type === 'placed' ? e.placement : e.type === 'failed' ? e.reason : e.type);
  }
  return out;
}

const votes = fc.integer({ min: 1, max: MAX_VOTE });

test('fitAware: no vote stays no vote, and every vote stays within 1..100', (t) => {
  t.is(fitAware(0), 0);
  fc.assert(fc.property(votes, (u) => fitAware(u) >= 1 && fitAware(u) <= MAX_VOTE));
});

test('fitAware: a roomy cluster outbids any cluster under pressure, and the roomiest wins among roomy ones', (t) => {
  const roomy = fc.integer({ min: PACK_BELOW, max: MAX_VOTE });
  const pressed = fc.integer({ min: 1, max: PACK_BELOW - 1 });
  fc.assert(fc.property(roomy, pressed, (r, p) => fitAware(r) > fitAware(p)));
  fc.assert(fc.property(roomy, roomy, (a, b) => a <= b === fitAware(a) <= fitAware(b)));
  t.is(fitAware(100), 100);
});

test('fitAware: under pressure the tightest fit bids highest', (t) => {
  const pressed = fc.integer({ min: 1, max: PACK_BELOW - 1 });
  fc.assert(fc.property(pressed, pressed, (a, b) => a <= b === fitAware(a) >= fitAware(b)));
  t.true(fitAware(1) > fitAware(PACK_BELOW - 1));
});

// The origin c0 has no room; c1 and c2 offer room for a large component each. Spreading two small
// components over both left room for the large one on neither.
const tight: ClusterSpec[] = [
  { id: 'c0', free: { cpu: 0, memory: 0 }, scalePercent: 100 },
  { id: 'c1', free: { cpu: 1000, memory: 1024 }, scalePercent: 100 },
  { id: 'c2', free: { cpu: 1000, memory: 1024 }, scalePercent: 100 },
];
const small: Resources = { cpu: 250, memory: 256 };
const large: Resources = { cpu: 1000, memory: 1024 };

for (const mode of ['open', 'sealed'] as const) {
  test(`${mode}: under pressure small components pack, and the large one that comes later still finds a cluster`, (t) => {
    const placed = oneByOne(tight, mode, [job('a', 'c0', [['p', small]]), job('b', 'c0', [['p', small]]), job('big', 'c0', [['p', large]])]);
    const a = placed.get('c0/a');
    const b = placed.get('c0/b');
    const big = placed.get('c0/big');
    t.true(typeof a === 'object' && typeof b === 'object' && typeof big === 'object', JSON.stringify([...placed]));
    if (typeof a !== 'object' || typeof b !== 'object' || typeof big !== 'object') return;
    t.is(a.p, b.p, 'the second small component joins the first');
    t.not(big.p, a.p);
  });

  test(`${mode}: with room to spare (at least PACK_BELOW% of the slice left) the small components still spread`, (t) => {
    const roomy = tight.map((c) => (c.id === 'c0' ? c : { ...c, free: { cpu: 2000, memory: 2048 } }));
    const placed = oneByOne(roomy, mode, [job('a', 'c0', [['p', small]]), job('b', 'c0', [['p', small]])]);
    const a = placed.get('c0/a');
    const b = placed.get('c0/b');
    t.true(typeof a === 'object' && typeof b === 'object', JSON.stringify([...placed]));
    if (typeof a !== 'object' || typeof b !== 'object') return;
    t.not(a.p, b.p, 'each goes to the cluster with the most room left');
  });
}

test('sealed: the origin bids again on what no provider bid on, so a job that only fits split is placed', (t) => {
  // c1 (the origin) can hold either component but not both; c0 can hold p0 only. The origin's first
  // bid (blind to c0's) takes p0, the first by name of two equal votes; once c0's bid on p0 is in,
  // it bids on p1 instead.
  const clusters: ClusterSpec[] = [
    { id: 'c0', free: { cpu: 2000, memory: 512 }, scalePercent: 100 },
    { id: 'c1', free: { cpu: 1000, memory: 1024 }, scalePercent: 50 },
  ];
  const placed = oneByOne(clusters, 'sealed', [job('j', 'c1', [['p0', { cpu: 1000, memory: 512 }], ['p1', { cpu: 500, memory: 1024 }]])]);
  t.deepEqual(placed.get('c1/j'), { p0: 'c0', p1: 'c1' });
});
