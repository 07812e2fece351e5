// resyncDelay (pure): each device resyncs in a slot of the period of its own, so devices created
// or touched together do not resync together.
import test from 'ava';
import fc from 'fast-check';
import { resyncDelay } from '../../controller/resync.ts';

const PERIOD = 60_000;
const T0 = Date.parse('2026-11-23T12:00:00Z');

test('the delay is between half a period and one and a half, and a key keeps its slot one period apart', (t) => {
  fc.assert(fc.property(fc.string(), fc.integer({ min: 0, max: 10 * PERIOD }), fc.integer({ min: 1000, max: 600_000 }), (key, offset, period) => {
    const now = T0 + offset;
    const delay = resyncDelay(key, now, period);
    const due = now + delay;
    // reconciled again at its due time (a resync nothing interrupted): exactly one period later
    return delay >= period / 2 && delay < 1.5 * period && resyncDelay(key, due, period) === period;
  }));
  t.pass();
});

test('10,000 devices reconciled at one instant resync spread evenly over the period, not together', (t) => {
  const buckets = new Array<number>(10).fill(0);
  for (let i = 0; i < 10_000; i++) {
    const due = T0 + resyncDelay(`devices/device-${String(i)}`, T0, PERIOD);
    const phase = (due - T0 - PERIOD / 2) / PERIOD; // 0..1 across the window of possible due times
    const bucket = buckets[Math.floor(phase * 10)];
    if (bucket !== undefined) buckets[Math.floor(phase * 10)] = bucket + 1;
  }
  t.is(buckets.reduce((a, b) => a + b, 0), 10_000);
  // a crowd would put everything in one bucket; even spreading puts ~1,000 in each
  for (const count of buckets) t.true(count > 800 && count < 1200, `bucket counts ${buckets.join(', ')}`);
});
