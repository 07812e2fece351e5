// Bus messages about one component are applied one at a time, the newest last (NewestPerKey):
// pure, with handlers the test releases by hand.
import test from 'ava';
import { NewestPerKey } from '../../controller/offload/newest.ts';
import { waitFor } from '../support/wait.ts';

interface Held { readonly message: string; readonly superseded: () => boolean; readonly release: (fail?: boolean) => void }

/** An inbox whose handler records each message and holds it until the test releases it. */
function heldInbox(): { inbox: NewestPerKey<string>; held: Held[]; applied: string[] } {
  const held: Held[] = [];
  const applied: string[] = [];
  const inbox = new NewestPerKey<string>((message, superseded) => new Promise<void>((resolve, reject) => {
    held.push({ message, superseded, release: (fail = false) => { applied.push(message); if (fail) reject(new Error(`${message} failed`)); else resolve(); } });
  }));
  return { inbox, held, applied };
}

const next = async (held: Held[], count: number): Promise<Held> => {
  await waitFor(`handler call ${String(count)}`, () => (held.length >= count ? true : undefined), { timeoutMs: 5_000, intervalMs: 1 });
  const call = held[count - 1];
  if (call === undefined) throw new Error('no call');
  return call;
};

test('one message per key at a time; one that waits is replaced by a newer one, never applied after it', async (t) => {
  const { inbox, held, applied } = heldInbox();
  inbox.offer('lease/a/app/api', 'launch=false');
  const first = await next(held, 1);
  t.is(first.message, 'launch=false');
  t.false(first.superseded(), 'nothing newer yet');
  inbox.offer('lease/a/app/api', 'renewal');
  inbox.offer('lease/a/app/api', 'launch=true');
  t.is(held.length, 1, 'the second message waits for the first');
  t.true(first.superseded(), 'a newer message waits: a retry of the first would be wasted');
  t.is(inbox.pending, 1);
  first.release();
  const second = await next(held, 2);
  t.is(second.message, 'launch=true', 'the renewal in between was replaced, not applied');
  t.false(second.superseded());
  second.release();
  await waitFor('drained', () => (inbox.pending === 0 ? true : undefined), { timeoutMs: 5_000, intervalMs: 1 });
  t.deepEqual(applied, ['launch=false', 'launch=true']);
});

test('keys do not wait for each other, and a failing message does not stop its key', async (t) => {
  const { inbox, held, applied } = heldInbox();
  inbox.offer('lease/a/app/api', 'api-1');
  inbox.offer('lease/a/app/db', 'db-1');
  await next(held, 2);
  t.deepEqual(held.map((h) => h.message), ['api-1', 'db-1'], 'both keys are applied side by side');
  t.is(inbox.pending, 2);
  inbox.offer('lease/a/app/api', 'api-2');
  held[0]?.release(true);
  const third = await next(held, 3);
  t.is(third.message, 'api-2', 'after a failure the key goes on with its next message');
  third.release();
  held[1]?.release();
  await waitFor('drained', () => (inbox.pending === 0 ? true : undefined), { timeoutMs: 5_000, intervalMs: 1 });
  t.deepEqual(applied, ['api-1', 'api-2', 'db-1']);
});
