// The pure guards of the bus (shared/bus/guard.ts) and the settings that configure them: token
// buckets, the broker's pace, the replay window, and the parsing of their flags.
import test from 'ava';
import { dedupTtl, outsideWindow, Pacer, RateLimiter } from '../../shared/bus/guard.ts';
import { brokerPace, DEFAULT_RATE_LIMITS, rateLimits } from '../../controller/offload/settings.ts';

test('a bucket lets its burst through, then its rate; each (login, origin, kind) has its own', (t) => {
  const limiter = new RateLimiter({ default: { perSecond: 100, burst: 100 }, byKind: { votes: { perSecond: 10, burst: 3 } } });
  const taken = (now: number, n: number, from: { link?: string; origin?: string; kind?: string } = {}): number =>
    Array.from({ length: n }, () => limiter.take(from.link ?? 'f', from.origin ?? 'f', from.kind ?? 'votes', now)).filter(Boolean).length;
  t.is(taken(0, 10), 3, 'the burst');
  t.is(taken(50, 10), 0, 'half a token is not one');
  t.is(taken(100, 10), 1, 'one token per 100 ms');
  t.is(taken(100, 10, { link: 'g' }), 3, 'another login has its own bucket');
  t.is(taken(100, 10, { origin: 'x' }), 3, 'so has what f relays for another origin');
  t.is(taken(100, 200, { kind: 'slice-advert' }), 100, 'other kinds take the default');
  t.is(taken(10_000, 10), 3, 'an idle bucket refills only to its burst');
});

test('the pace lets the burst through at once, then spaces publishes at its rate', (t) => {
  const pacer = new Pacer({ perSecond: 10, burst: 2 });
  t.deepEqual([0, 0, 0, 0].map(() => pacer.wait('f', 0)), [0, 0, 100, 200]);
  t.is(pacer.wait('g', 0), 0, 'another login is not held');
  t.is(pacer.wait('f', 1000), 0, 'after its debt is paid and a token is due');
});

test('the replay window refuses old and far-future timestamps, and de-duplication remembers at least as long', (t) => {
  const window = { pastMs: 300_000, futureMs: 30_000 };
  t.is(outsideWindow(1_000_000, 1_000_000, window), undefined);
  t.regex(outsideWindow(1_000_000 - 300_001, 1_000_000, window) ?? '', /more than the replay window/);
  t.regex(outsideWindow(1_000_000 + 30_001, 1_000_000, window) ?? '', /ahead of this clock/);
  t.is(dedupTtl(window, 60_000), 330_000);
  t.is(dedupTtl(undefined, 600_000), 600_000);
});

test('rate limit and pace flags parse, and a bad entry is refused naming it', (t) => {
  const limits = rateLimits(DEFAULT_RATE_LIMITS);
  t.deepEqual(limits.default, { perSecond: 100, burst: 200 });
  t.deepEqual(limits.byKind?.['slice-advert'], { perSecond: 20, burst: 40 });
  t.throws(() => rateLimits('votes=fast'), { message: /entry "votes=fast" must be kind=perSecond\/burst/ });
  t.throws(() => rateLimits('votes=0/5'), { message: /perSecond > 0/ });
  t.deepEqual(brokerPace('1000/1000'), { perSecond: 1000, burst: 1000 });
  t.throws(() => brokerPace('1000'), { message: /--drone-broker-pace must be perSecond\/burst/ });
});
