// TelemetryServices read from the API are reused for a while, so a push every second is not a GET
// every second; failures are not kept.
import test from 'ava';
import { cachedServices } from '../../deviceshifu/telemetry/service-cache.ts';
import type { PushTarget } from '../../deviceshifu/telemetry/service.ts';

test('a TelemetryService is read once per ttl, per name, and read again once the ttl is over', async (t) => {
  let clock = 0;
  const reads: string[] = [];
  const resolve = cachedServices((name) => { reads.push(name); return Promise.resolve({ kind: 'http', url: `http://${name}.example` } satisfies PushTarget); }, 1000, () => clock);
  t.is((await resolve('a'))?.url, 'http://a.example');
  await resolve('a');
  await resolve('b');
  t.deepEqual(reads, ['a', 'b']);
  clock = 999;
  await resolve('a');
  t.deepEqual(reads, ['a', 'b']);
  clock = 1000;
  await resolve('a');
  t.deepEqual(reads, ['a', 'b', 'a']);
});

test('a failed read is not kept: the next push asks again', async (t) => {
  let fail = true;
  let reads = 0;
  const resolve = cachedServices(() => { reads += 1; return fail ? Promise.reject(new Error('API server unreachable')) : Promise.resolve(undefined); }, 60_000, () => 0);
  await t.throwsAsync(resolve('a'), { message: 'API server unreachable' });
  fail = false;
  t.is(await resolve('a'), undefined);
  t.is(await resolve('a'), undefined);
  t.is(reads, 2, 'the failure was retried, the answer (not found) then kept');
});

test('ttl 0 reads every time', async (t) => {
  let reads = 0;
  const resolve = cachedServices(() => { reads += 1; return Promise.resolve(undefined); }, 0, () => 0);
  await resolve('a');
  await resolve('a');
  t.is(reads, 2);
});
