import test from 'ava';
import fc from 'fast-check';
import type { Job } from '../../controller/drone/model.ts';
import { SimFederation, type ClusterSpec, type Faults } from './support/network.ts';
import { checkOutcomes, checkSafety, type Capacity } from './support/invariants.ts';

interface Scenario {
  readonly clusters: ClusterSpec[];
  readonly jobs: Array<{ at: number; job: Job }>;
  readonly faults: Faults;
  readonly seed: number;
  /** Providers called per round (0: all; 1 and 2 make the origin call more, round after round). */
  readonly fanout: number;
  /** One message for all the recipients, or one each (DroneAgentOptions.multicast). */
  readonly multicast: boolean;
}

const clusterIds = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];

const scenario: fc.Arbitrary<Scenario> = fc.integer({ min: 2, max: 6 }).chain((n) => {
  const ids = clusterIds.slice(0, n);
  const cluster = (id: string): fc.Arbitrary<ClusterSpec> => fc.record({
    id: fc.constant(id),
    free: fc.record({ cpu: fc.integer({ min: 0, max: 16000 }), memory: fc.integer({ min: 0, max: 32768 }) }),
    scalePercent: fc.integer({ min: 0, max: 100 }),
  });
  const comp = fc.record({
    name: fc.constantFrom('api', 'db', 'cache', 'worker'),
    cpu: fc.integer({ min: 100, max: 2500 }),
    memory: fc.integer({ min: 64, max: 3072 }),
    // Placement lists on about one component in seven each, so that most jobs can be placed.
    white: fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.subarray(ids, { minLength: 1 }), weight: 1 }),
    black: fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.subarray(ids, { minLength: 1 }), weight: 1 }),
  });
  const jobArb = fc.record({
    at: fc.integer({ min: 10, max: 600 }),
    origin: fc.constantFrom(...ids),
    components: fc.uniqueArray(comp, { minLength: 1, maxLength: 3, selector: (c) => c.name }),
    offload: fc.boolean(),
  });
  return fc.record({
    clusters: fc.tuple(...ids.map(cluster)),
    jobs: fc.array(jobArb, { minLength: 1, maxLength: 5 }).map((js) => js.map((j, i) => ({
      at: j.at,
      job: {
        app: `app-${i}`, origin: j.origin, offload: j.offload,
        components: j.components.map((c) => ({
          name: c.name, image: `registry.example/${c.name}:1`, resources: { cpu: c.cpu, memory: c.memory },
          ...(c.white === null ? {} : { clustersWhitelist: c.white }),
          ...(c.black === null ? {} : { clustersBlacklist: c.black }),
        })),
      },
    }))),
    faults: fc.record({
      drop: fc.double({ min: 0, max: 0.3, noNaN: true }),
      duplicate: fc.double({ min: 0, max: 0.3, noNaN: true }),
      reorder: fc.double({ min: 0, max: 0.3, noNaN: true }),
      delayMs: fc.integer({ min: 0, max: 30 }),
    }),
    seed: fc.integer(),
    fanout: fc.constantFrom(0, 1, 2, 4),
    multicast: fc.boolean(),
  }).map((s) => ({ ...s, clusters: [...s.clusters] }));
});

interface Tally { placed: number; failed: number }

function play(s: Scenario, mode: 'open' | 'sealed', tally: Tally): string | undefined {
  const fed = new SimFederation(s.clusters, { seed: s.seed, faults: s.faults, mode, fanout: s.fanout, multicast: s.multicast });
  const capacity = new Map<string, Capacity>(s.clusters.map((c) => [c.id, c]));
  let violation: string | undefined;
  fed.onStep(() => { violation ??= checkSafety(fed, capacity); });
  fed.start();
  for (const { at, job } of [...s.jobs].sort((a, b) => a.at - b.at)) {
    fed.run(at);
    fed.submit(job);
  }
  fed.run(30_000);
  for (const events of fed.outcomes().values()) {
    if (events[0]?.type === 'placed') tally.placed += 1;
    else tally.failed += 1;
  }
  if (fed.invalid > 0) return `${fed.invalid} messages the agents sent failed validation: ${fed.invalidDetails[0] ?? ''}`;
  return violation ?? checkOutcomes(fed, s.jobs.map((j) => j.job));
}

for (const mode of ['open', 'sealed'] as const) {
  test(`in ${mode} mode, under message loss, duplication, reordering and delay, no component is hosted twice or beyond a slice and every job ends placed or failed with a reason`, (t) => {
    const tally: Tally = { placed: 0, failed: 0 };
    fc.assert(fc.property(scenario, (s) => {
      const problem = play(s, mode, tally);
      if (problem !== undefined) throw new Error(problem);
    }), { numRuns: 200, seed: mode === 'open' ? 7 : 11 });
    t.log(`${tally.placed} jobs placed, ${tally.failed} failed with a reason`);
    // The runs must exercise placement, not only failure.
    t.true(tally.placed > tally.failed / 4, `${tally.placed} placed, ${tally.failed} failed`);
  });
}
