// The idle collector's decision (shared/idle-collector.ts), pure: when a busy spell ends, one
// collection; never two closer than the gap; never while busy; and every busy spell that is
// followed by enough quiet gets its collection.
import test from 'ava';
import fc from 'fast-check';
import { idleStep, STARTING, type IdleCollectorSettings, type IdleState } from '../../shared/idle-collector.ts';

const SETTINGS: IdleCollectorSettings = { intervalMs: 2000, quietBelow: 0.02, minGapIntervals: 5 };
const BUSY = 0.5;
const QUIET = 0.001;

/** Which intervals (0-based) collected, over these readings from `state`. */
function collections(readings: readonly number[], state: IdleState = STARTING, settings = SETTINGS): number[] {
  const at: number[] = [];
  readings.forEach((u, i) => {
    const step = idleStep(state, u, settings);
    state = step.state;
    if (step.collect) at.push(i);
  });
  return at;
}

test('start-up counts as busy: the first quiet interval collects, and quiet after it collects nothing more', (t) => {
  t.deepEqual(collections([QUIET, QUIET, QUIET, QUIET, QUIET, QUIET, QUIET]), [0]);
  t.deepEqual(collections([BUSY, BUSY, QUIET, QUIET]), [2], 'a busy start collects once it goes quiet');
});

test('a busy spell ends in one collection, in its first quiet interval once the gap has passed', (t) => {
  const spell = [QUIET, ...Array<number>(6).fill(BUSY), QUIET, QUIET, QUIET];
  t.deepEqual(collections(spell), [0, 7]);
  // busy again just after a collection: the next one waits for the gap, then for quiet
  t.deepEqual(collections([QUIET, BUSY, QUIET, QUIET, QUIET, QUIET, QUIET, QUIET]), [0, 5]);
});

test('an interval at exactly the threshold is busy, one under it quiet', (t) => {
  t.deepEqual(collections([SETTINGS.quietBelow, SETTINGS.quietBelow]), []);
  t.deepEqual(collections([SETTINGS.quietBelow, SETTINGS.quietBelow - 1e-9]), [1]);
});

const reading = fc.oneof(fc.constant(QUIET), fc.constant(BUSY), fc.double({ min: 0, max: 1, noNaN: true }));

test('property: never while busy, never two within the gap, and every busy spell followed by enough quiet is collected', (t) => {
  fc.assert(fc.property(fc.array(reading, { maxLength: 200 }), fc.integer({ min: 1, max: 10 }), (readings, gap) => {
    const settings = { ...SETTINGS, minGapIntervals: gap };
    const at = collections(readings, STARTING, settings);
    for (const i of at) if ((readings[i] ?? 1) >= settings.quietBelow) return false;
    for (let k = 1; k < at.length; k++) if ((at[k] ?? 0) - (at[k - 1] ?? 0) < gap) return false;
    // liveness: after the last busy reading, `gap` quiet readings always bring a collection
    const tail = [...readings, ...Array<number>(gap).fill(QUIET)];
    const lastBusy = tail.reduce((last, u, i) => (u >= settings.quietBelow ? i : last), -1);
    return collections(tail, STARTING, settings).some((i) => i > lastBusy);
  }));
  t.pass();
});
