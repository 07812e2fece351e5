// An origin's failed deployments are re-auctioned one at a time (RetryTurns): pure, with the
// reconciler's calls made by hand and by fast-check.
import test from 'ava';
import fc from 'fast-check';
import { RetryTurns } from '../../controller/offload/retry-turns.ts';

test('one re-auction at a time; the decision of the turn\'s app wakes those that waited', (t) => {
  const turns = new RetryTurns(30_000);
  t.true(turns.take('apps/a', 0));
  t.false(turns.take('apps/b', 1), 'b waits while a is re-auctioned');
  t.false(turns.take('apps/c', 2));
  t.true(turns.take('apps/a', 3), 'the holder may ask again (a requeue before its auction started)');
  turns.started('apps/a', 'apps.a.2');
  t.deepEqual(turns.decided('apps.b.1'), [], 'another app\'s decision ends nothing');
  t.is(turns.holder(), 'apps/a');
  t.deepEqual(turns.decided('apps.a.2'), ['apps/b', 'apps/c']);
  t.true(turns.take('apps/c', 4), 'the first woken to ask gets the turn');
  t.false(turns.take('apps/b', 5));
  turns.started('apps/c', 'apps.c.2');
  t.deepEqual(turns.forget('apps/c'), ['apps/b'], 'a deleted holder hands the turn on');
  t.true(turns.take('apps/b', 6));
});

test('a turn whose auction never reports ends after turnMs; one put to auction for a reason of its own waits no more', (t) => {
  const turns = new RetryTurns(1_000);
  t.true(turns.take('apps/a', 0));
  t.false(turns.take('apps/b', 999));
  t.true(turns.take('apps/b', 1_000), 'a\'s turn lapsed');
  t.false(turns.take('apps/c', 1_001));
  turns.started('apps/c', 'apps.c.3'); // its spec changed: auctioned at once, out of the line
  turns.started('apps/b', 'apps.b.2');
  t.deepEqual(turns.decided('apps.b.2'), [], 'c no longer waits');
});

test('property: never two turns at once, and every deployment that waits gets a turn once the holder decides', (t) => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('take' as const), key: fc.integer({ min: 0, max: 4 }) }),
    fc.record({ kind: fc.constant('decide' as const) }),
    fc.record({ kind: fc.constant('forget' as const), key: fc.integer({ min: 0, max: 4 }) }),
  );
  fc.assert(fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
    const turns = new RetryTurns(Number.POSITIVE_INFINITY);
    const waiting = new Set<string>();
    let holder: string | undefined;
    let attempt = 0;
    for (const o of ops) {
      if (o.kind === 'take') {
        const key = `apps/d${String(o.key)}`;
        const granted = turns.take(key, 0);
        if (granted !== (holder === undefined || holder === key)) return false;
        if (granted) { holder = key; waiting.delete(key); attempt += 1; turns.started(key, `${key}.${String(attempt)}`); } else waiting.add(key);
      } else if (o.kind === 'decide') {
        if (holder === undefined) continue;
        const woken = turns.decided(`${holder}.${String(attempt)}`);
        if (woken.length !== waiting.size || !woken.every((k) => waiting.has(k))) return false;
        holder = undefined;
      } else {
        const key = `apps/d${String(o.key)}`;
        const woken = turns.forget(key);
        waiting.delete(key);
        if (woken.length !== (holder === key ? waiting.size : 0)) return false;
        if (holder === key) holder = undefined;
      }
      if (turns.holder() !== holder) return false;
    }
    return true;
  }));
  t.pass();
});
