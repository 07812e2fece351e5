// The controller's HTTP server on node:http (no express): probes, the scrape, mounted routes in
// order, and a clear answer for unknown paths, other methods and a failing route.
import test, { type ExecutionContext } from 'ava';
import type { AddressInfo } from 'node:net';
import { controllerServer, listen } from '../../controller/server.ts';
import { controllerRegistry } from '../../controller/metrics.ts';
import type { HttpRoute } from '../../shared/node-http.ts';

async function serve(t: ExecutionContext, routes: readonly HttpRoute[], ready = { ok: false, detail: 'filling caches' }): Promise<string> {
  const server = controllerServer({ registry: controllerRegistry(), ready: () => ready, routes });
  const { port } = await listen(server, '127.0.0.1', 0);
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }));
  t.is((server.address() as AddressInfo).address, '127.0.0.1');
  return `http://127.0.0.1:${port}`;
}

test('probes and the scrape answer; readiness follows the callback', async (t) => {
  const ready = { ok: false, detail: 'filling caches' };
  const base = await serve(t, [], ready);
  const health = await fetch(`${base}/healthz`);
  t.is(health.status, 200);
  t.is(await health.text(), 'ok');
  const notReady = await fetch(`${base}/readyz`);
  t.is(notReady.status, 503);
  t.is(await notReady.text(), 'filling caches');
  Object.assign(ready, { ok: true, detail: 'leading' });
  t.is((await fetch(`${base}/readyz?verbose`)).status, 200);
  const metrics = await fetch(`${base}/metrics`);
  t.is(metrics.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  t.regex(await metrics.text(), /edgeshifu_process_resident_memory_bytes\{component="controller"\} \d+/);
  t.is((await fetch(`${base}/healthz`, { method: 'HEAD' })).status, 200);
});

test('routes are tried in order after the probes; unknown paths and other methods get 404; a failing route gets 500 and the server stays up', async (t) => {
  const seen: string[] = [];
  const first: HttpRoute = (req) => { seen.push(`first ${req.url ?? ''}`); return false; };
  const second: HttpRoute = (req, res) => {
    if (req.url === '/boom') return Promise.reject(new Error('broken route'));
    if (req.url !== '/second') return false;
    res.writeHead(200).end('second');
    return true;
  };
  const base = await serve(t, [first, second]);
  t.is(await (await fetch(`${base}/second`)).text(), 'second');
  t.deepEqual(seen, ['first /second']);
  const missing = await fetch(`${base}/nothing`);
  t.is(missing.status, 404);
  t.regex(await missing.text(), /serves \/healthz, \/readyz, \/metrics and \/edgemap/);
  t.is((await fetch(`${base}/healthz`, { method: 'POST' })).status, 404);
  const boom = await fetch(`${base}/boom`);
  t.is(boom.status, 500);
  t.is((await fetch(`${base}/healthz`)).status, 200, 'still serving');
});

test("answers carry one Date header written without V8's date formatters, which load ICU's time zone data", async (t) => {
  const base = await serve(t, [], { ok: true, detail: 'leading' });
  const calls: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to call with the Date as `this`, and to put back
  const { toUTCString, toISOString } = Date.prototype;
  Date.prototype.toUTCString = function (this: Date) { calls.push('toUTCString'); return toUTCString.call(this); };
  Date.prototype.toISOString = function (this: Date) { calls.push('toISOString'); return toISOString.call(this); };
  t.teardown(() => { Date.prototype.toUTCString = toUTCString; Date.prototype.toISOString = toISOString; });
  for (const path of ['/healthz', '/readyz', '/metrics', '/nowhere']) {
    const res = await fetch(`${base}${path}`);
    await res.text();
    t.regex(res.headers.get('date') ?? '', /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/, path);
  }
  t.deepEqual(calls, []);
});
