// follow=true on a carried pod's log (pure loop, then the route over HTTP on 127.0.0.1): reads
// again from the last line's second with timestamps on, writes each line once, takes the
// timestamps off unless asked, and ends when the provider says the pod or its contract is gone, or
// when the client leaves. The reads stand for the bus exchange (peering tests carry it for real).
import test from 'ava';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EdgeshifuError } from '../../shared/errors.ts';
import { followingRead, followLog, newLines } from '../../controller/rear/peering/log-follow.ts';
import { followOf, logOptionsOf, podLogRoute } from '../../controller/rear/peering/log-route.ts';
import type { LogOptions } from '../../controller/rear/messages/pod-log-request.ts';

const T1 = '2026-01-01T00:00:01.5Z';
const T2 = '2026-01-01T00:00:01.50001Z';
const T3 = '2026-01-01T00:00:02Z';

test('new lines: after the last one written, by time to the nanosecond; timestamps off unless kept', (t) => {
  t.deepEqual(newLines(`${T1} a\n${T2} b\n`, undefined, false), { text: 'a\nb\n', last: T2 });
  t.deepEqual(newLines(`${T1} a\n${T2} b\n${T3} c\n`, T2, true), { text: `${T3} c\n`, last: T3 }, 'a shorter fraction is not taken for a later time');
  t.deepEqual(newLines('', T1, false), { text: '', last: T1 });
  t.deepEqual(followingRead({ container: 'web', tailLines: 5, sinceSeconds: 60, limitBytes: 10 }, T2), { container: 'web', limitBytes: 10, timestamps: true, sinceTime: '2026-01-01T00:00:01Z' });
});

test('followLog: each line once, until the pod is gone; the first read\'s failure is thrown before anything is written', async (t) => {
  const reads: LogOptions[] = [];
  const answers: Array<string | EdgeshifuError> = [`${T1} a\n`, `${T1} a\n${T2} b\n`, new EdgeshifuError('timeout', 'no answer'), `${T2} b\n${T3} c\n`, new EdgeshifuError('not-found', 'prov-b runs no pod apps/web')];
  const written: string[] = [];
  const io = {
    read: (o: LogOptions): Promise<{ log: string; truncated: boolean }> => { reads.push(o); const a = answers.shift(); return a === undefined || a instanceof Error ? Promise.reject(a ?? new Error('no more')) : Promise.resolve({ log: a, truncated: false }); },
    write: (text: string) => { written.push(text); }, closed: () => false, wait: () => Promise.resolve(), now: () => Date.parse(T1),
  };
  t.is(await followLog(io, { tailLines: 10 }), 'gone');
  t.is(written.join(''), 'a\nb\nc\n');
  t.deepEqual(reads[0], { tailLines: 10, timestamps: true });
  t.deepEqual(reads[1], { timestamps: true, sinceTime: '2026-01-01T00:00:01Z' });
  t.is(reads.length, 5, 'a read with no answer is asked again');
  await t.throwsAsync(followLog({ ...io, read: () => Promise.reject(new EdgeshifuError('forbidden', 'no live contract')) }, {}), { message: /no live contract/ });
});

test('the route streams a followed log and ends when the contract does; follow with previous is refused', async (t) => {
  t.true(followOf(new URLSearchParams('follow=true')));
  t.false(followOf(new URLSearchParams('')));
  t.throws(() => followOf(new URLSearchParams('follow=true&previous=true')), { message: /do not go together/ });
  t.throws(() => followOf(new URLSearchParams('follow=yes')), { message: /follow must be true or false/ });
  t.deepEqual(logOptionsOf(new URLSearchParams('follow=true&tailLines=1')), { tailLines: 1 });
  let n = 0;
  const route = podLogRoute(() => () => {
    n += 1;
    if (n > 2) return Promise.reject(new EdgeshifuError('forbidden', 'prov-b holds no live contract c1 for cons-a'));
    return Promise.resolve({ log: n === 1 ? `${T1} first\n` : `${T1} first\n${T3} second\n`, truncated: false });
  });
  const server = createServer((req, res) => { void route(req, res); });
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  t.teardown(() => { server.close(); });
  const { port } = server.address() as AddressInfo;
  const body = await new Promise<{ status?: number; chunked: boolean; text: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/rear/v1/namespaces/apps/pods/web/log?follow=true' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => { resolve({ status: res.statusCode, chunked: res.headers['transfer-encoding'] === 'chunked', text }); });
    }).on('error', reject).end();
  });
  t.deepEqual(body, { status: 200, chunked: true, text: 'first\nsecond\n' });
  t.is(n, 3, 'read until the contract was gone');
});
