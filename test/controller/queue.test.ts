import test from 'ava';
import { WorkQueue } from '../../controller/queue.ts';
import { waitFor } from '../support/wait.ts';

test('a key added many times waits once', async (t) => {
  const queue = new WorkQueue();
  for (const key of ['a', 'b', 'a', 'a', 'b']) queue.add(key);
  t.is(queue.depth, 2);
  t.is(await queue.get(), 'a');
  t.is(await queue.get(), 'b');
  t.is(queue.depth, 0);
});

test('a key being processed is not handed out again, but comes back once when it changed meanwhile', async (t) => {
  const queue = new WorkQueue();
  queue.add('a');
  const key = await queue.get();
  queue.add('a');
  queue.add('a');
  t.is(queue.depth, 0, 'not handed to a second worker while the first holds it');
  queue.done(key!);
  t.is(queue.depth, 1);
  t.is(await queue.get(), 'a');
  queue.done('a');
  t.is(queue.depth, 0);
});

test('a waiting worker gets the next key added', async (t) => {
  const queue = new WorkQueue();
  const next = queue.get();
  queue.add('x');
  t.is(await next, 'x');
});

test('failures back off exponentially per key and forget resets them', (t) => {
  const queue = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 1000 });
  t.deepEqual([1, 2, 3, 4, 5].map(() => queue.addRateLimited('k')), [100, 200, 400, 800, 1000]);
  t.is(queue.retries('k'), 5);
  queue.forget('k');
  t.is(queue.retries('k'), 0);
  queue.shutdown();
});

test('a delayed key arrives after its delay, and shutdown releases waiting workers', async (t) => {
  const queue = new WorkQueue();
  queue.addAfter('later', 20);
  t.is(queue.depth, 0);
  await waitFor('the delayed key', () => queue.depth === 1 ? true : undefined, { timeoutMs: 5000, intervalMs: 5 });
  t.is(await queue.get(), 'later');
  const waiting = queue.get();
  queue.shutdown();
  t.is(await waiting, undefined);
});

test('a quick retry is not held back by a long requeue already pending for the key (the earlier delay wins)', async (t) => {
  const queue = new WorkQueue();
  queue.addAfter('k', 60_000); // the periodic requeue after a success
  queue.addAfter('k', 10); // an error's backoff right after
  await waitFor('the retry', () => (queue.depth === 1 ? true : undefined), { timeoutMs: 5000, intervalMs: 5 });
  t.is(await queue.get(), 'k');
  queue.done('k');
  queue.addAfter('j', 10);
  queue.addAfter('j', 60_000); // a later one does not push the earlier back
  await waitFor('j on time', () => (queue.depth === 1 ? true : undefined), { timeoutMs: 5000, intervalMs: 5 });
  t.is(await queue.get(), 'j');
  queue.shutdown();
});

test('delayed keys arrive in the order they are due, each once, whatever order they were added in', async (t) => {
  const queue = new WorkQueue();
  const delays = [37, 5, 23, 6, 61, 1, 44, 12, 30, 18, 9, 50, 2, 27];
  delays.forEach((delay, i) => { queue.addAfter(`k${String(i)}`, delay); });
  // a later delay for a key already due sooner changes nothing; an earlier one moves it up
  queue.addAfter('k0', 100);
  queue.addAfter('k4', 3);
  // the queue's timer does not keep the process up (unref): wait on the queue itself
  await waitFor('every delayed key', () => queue.depth === delays.length ? true : undefined);
  const order: string[] = [];
  for (let i = 0; i < delays.length; i++) {
    const key = await queue.get();
    order.push(key ?? '');
    queue.done(key ?? '');
  }
  const due = delays.map((delay, i) => ({ key: `k${String(i)}`, delay: i === 4 ? 3 : delay }));
  t.deepEqual(order, [...due].sort((a, b) => a.delay - b.delay).map((d) => d.key), 'each key once, in the order due');
  t.is(queue.depth, 0);
  queue.shutdown();
});
