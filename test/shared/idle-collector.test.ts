// The idle collector's decision (shared/idle-collector.ts), pure: when a busy spell ends and the heap
// grew enough, one collection; never two closer than the gap; never while busy; never for a spell
// that grew the heap less than the threshold; and every busy spell that grew it enough and is
// followed by enough quiet gets its collection.
import test from 'ava';
import fc from 'fast-check';
import { collected, idleStep, STARTING, type IdleCollectorSettings, type IdleDecision, type IdleReading, type IdleState } from '../../shared/idle-collector.ts';

const MiB = 1024 * 1024;
const SETTINGS: IdleCollectorSettings = { intervalMs: 2000, quietBelow: 0.02, minGapIntervals: 5, minGrowthBytes: 6 * MiB };
const BUSY = 0.5;
const QUIET = 0.001;
/** What a collection leaves committed, in these tests. */
const FLOOR = 8 * MiB;
const heavy = (utilization: number): IdleReading => ({ utilization, heapBytes: 20 * MiB });
const light = (utilization: number): IdleReading => ({ utilization, heapBytes: 11 * MiB });

/** Each interval's decision over these readings from `state`; a collection leaves FLOOR committed. */
function decisions(readings: readonly IdleReading[], state: IdleState = STARTING, settings = SETTINGS): IdleDecision[] {
  return readings.map((r) => {
    const step = idleStep(state, r, settings);
    state = step.decision === 'collect' ? collected(step.state, FLOOR) : step.state;
    return step.decision;
  });
}
const collections = (readings: readonly IdleReading[], state?: IdleState, settings = SETTINGS): number[] =>
  decisions(readings, state, settings).flatMap((d, i) => (d === 'collect' ? [i] : []));

test('start-up counts as busy: the first quiet interval collects, and quiet after it collects nothing more', (t) => {
  t.deepEqual(collections(Array.from({ length: 7 }, () => light(QUIET))), [0], 'before the first collection any heap counts as grown');
  t.deepEqual(collections([heavy(BUSY), heavy(BUSY), heavy(QUIET), heavy(QUIET)]), [2], 'a busy start collects once it goes quiet');
});

test('a busy spell that grew the heap ends in one collection, in its first quiet interval once the gap has passed', (t) => {
  const spell = [heavy(QUIET), ...Array.from({ length: 6 }, () => heavy(BUSY)), heavy(QUIET), heavy(QUIET), heavy(QUIET)];
  t.deepEqual(collections(spell), [0, 7]);
  // busy again just after a collection: the next one waits for the gap, then for quiet
  t.deepEqual(collections([heavy(QUIET), heavy(BUSY), heavy(QUIET), heavy(QUIET), heavy(QUIET), heavy(QUIET), heavy(QUIET), heavy(QUIET)]), [0, 5]);
});

test('a light spell, which grew the heap less than the threshold, is not collected; a heavy one after it is', (t) => {
  const readings = [heavy(QUIET), ...Array.from({ length: 6 }, () => light(BUSY)), light(QUIET), light(QUIET), heavy(BUSY), heavy(QUIET)];
  const said = decisions(readings);
  t.is(said[0], 'collect');
  t.is(said[7], 'grew-too-little', 'the light spell ends with the decision not to collect, said once');
  t.is(said[8], 'none', 'quiet after that decision decides nothing more');
  t.is(said[10], 'collect');
  t.deepEqual(collections(readings), [0, 10]);
});

test('growth of exactly the threshold is collected, a byte less is not', (t) => {
  const after = collected(STARTING, FLOOR);
  const past = { ...after, sinceCollection: SETTINGS.minGapIntervals };
  t.is(idleStep(past, { utilization: QUIET, heapBytes: FLOOR + SETTINGS.minGrowthBytes }, SETTINGS).decision, 'collect');
  t.is(idleStep(past, { utilization: QUIET, heapBytes: FLOOR + SETTINGS.minGrowthBytes - 1 }, SETTINGS).decision, 'grew-too-little');
});

test('an interval at exactly the utilisation threshold is busy, one under it quiet', (t) => {
  t.deepEqual(collections([heavy(SETTINGS.quietBelow), heavy(SETTINGS.quietBelow)]), []);
  t.deepEqual(collections([heavy(SETTINGS.quietBelow), heavy(SETTINGS.quietBelow - 1e-9)]), [1]);
});

const utilization = fc.oneof(fc.constant(QUIET), fc.constant(BUSY), fc.double({ min: 0, max: 1, noNaN: true }));
const reading = fc.record({ utilization, heapBytes: fc.integer({ min: 0, max: 40 * MiB }) });

test('property: never while busy, never two within the gap, never under the growth threshold, and every grown spell followed by quiet is collected', (t) => {
  fc.assert(fc.property(fc.array(reading, { maxLength: 200 }), fc.integer({ min: 1, max: 10 }), (readings, gap) => {
    const settings = { ...SETTINGS, minGapIntervals: gap };
    const at = collections(readings, STARTING, settings);
    for (const i of at) {
      const r = readings[i];
      if (r === undefined || r.utilization >= settings.quietBelow) return false;
      if (i !== at[0] && r.heapBytes - FLOOR < settings.minGrowthBytes) return false;
    }
    for (let k = 1; k < at.length; k++) if ((at[k] ?? 0) - (at[k - 1] ?? 0) < gap) return false;
    // liveness: a busy reading with a grown heap, then `gap` quiet ones, always brings a collection
    const tail = [...readings, { utilization: BUSY, heapBytes: FLOOR + settings.minGrowthBytes }, ...Array.from({ length: gap }, () => ({ utilization: QUIET, heapBytes: FLOOR + settings.minGrowthBytes }))];
    return collections(tail, STARTING, settings).some((i) => i > readings.length);
  }));
  t.pass();
});
