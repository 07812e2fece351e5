// Probe scheduling: jitter stays within its bounds, the token bucket caps the rate, due devices
// come earliest first and never more than asked.
import test from 'ava';
import fc from 'fast-check';
import { FIRST_PROBE_SPREAD_MS, dueKeys, firstProbeAt, nextProbeAt, takeTokens, untilNextDue } from '../../shifud/schedule.ts';

test('the next probe is one period away, give or take the jitter', (t) => {
  fc.assert(fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (r, jitter) => {
    const next = nextProbeAt(1000, 30_000, jitter, () => r);
    return next >= 1000 + 30_000 * (1 - jitter) - 1 && next <= 1000 + 30_000 * (1 + jitter) + 1;
  }));
  t.is(nextProbeAt(0, 30_000, 0.2, () => 0), 24_000);
  t.is(nextProbeAt(0, 30_000, 0.2, () => 0.5), 30_000);
  t.is(nextProbeAt(0, 30_000, 0, () => 0.9), 30_000);
});

test('first probes are spread over a few seconds, or one period when it is shorter', (t) => {
  t.is(firstProbeAt(100, 30_000, () => 0), 100);
  t.is(firstProbeAt(100, 30_000, () => 0.999), 100 + Math.floor(0.999 * FIRST_PROBE_SPREAD_MS));
  t.is(firstProbeAt(100, 200, () => 0.5), 200);
});

test('the token bucket grants no more than its rate over time', (t) => {
  const rate = { perSecond: 20, burst: 8 };
  let bucket = { tokens: 8, at: 0 };
  let granted = 0;
  for (let now = 0; now <= 10_000; now += 10) {
    const taken = takeTokens(bucket, rate, now, 100);
    bucket = taken.bucket;
    granted += taken.granted;
  }
  // the burst, then 20 per second for 10 s
  t.true(granted <= 8 + 200, String(granted));
  t.true(granted >= 200, String(granted));
  t.deepEqual(takeTokens({ tokens: 0.5, at: 0 }, rate, 0, 3), { granted: 0, bucket: { tokens: 0.5, at: 0 } });
});

test('due devices come earliest first, at most as many as asked', (t) => {
  const schedule = new Map([['a', 300], ['b', 100], ['c', 200], ['d', 900], ['e', Number.POSITIVE_INFINITY]]);
  t.deepEqual(dueKeys(schedule, 500, 10), ['b', 'c', 'a']);
  t.deepEqual(dueKeys(schedule, 500, 2), ['b', 'c']);
  t.deepEqual(dueKeys(schedule, 500, 0), []);
  t.is(untilNextDue(schedule, 500, 1000), 0);
  t.is(untilNextDue(new Map([['d', 900]]), 500, 1000), 400);
  t.is(untilNextDue(new Map(), 500, 1000), 1000);
});
