import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { Registry } from '../../shared/prometheus.ts';
import { buildEdgeMapPage } from '../../edgemap/build-page.ts';
import { toDot, toSnapshot, type EdgeMapChange, type EdgeMapSnapshot } from '../../edgemap/index.ts';
import { waitFor } from '../support/wait.ts';
import { plant } from './fixtures.ts';
import { SseReader, serve } from './serve.ts';

function gauge(registry: Registry, name: string): Promise<number> {
  const line = registry.metrics().split('\n').find((l) => l.startsWith(`${name} `));
  return Promise.resolve(line === undefined ? NaN : Number(line.slice(name.length + 1)));
}

test('GET /edgemap answers the JSON snapshot, and a browser is sent to the page', async (t) => {
  const map = plant();
  const served = await serve(map, { pageDir: '/nonexistent' });
  t.teardown(() => served.close());
  const res = await fetch(`${served.url}/edgemap`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /application\/json/);
  t.deepEqual(await res.json(), JSON.parse(JSON.stringify(toSnapshot(map))));
  const browser = await fetch(`${served.url}/edgemap`, { headers: { accept: 'text/html,*/*;q=0.8' }, redirect: 'manual' });
  t.is(browser.status, 303);
  t.is(browser.headers.get('location'), 'edgemap/');
});

test('GET /edgemap/closest answers the node the closeness ranking puts first for a device, and says what is wrong with a bad query', async (t) => {
  const map = plant();
  const served = await serve(map, { pageDir: '/nonexistent' });
  t.teardown(() => served.close());
  const arm = await fetch(`${served.url}/edgemap/closest?device=plant%2Farm`);
  t.is(arm.status, 200);
  const answer = await arm.json() as { node: string; basis: string; distanceKm?: number };
  t.is(answer.node, 'line-b', 'the nearer node by coordinates');
  t.is(answer.basis, 'distance');
  const thermo = await (await fetch(`${served.url}/edgemap/closest?device=plant/thermo`)).json() as { node: string; basis: string };
  t.deepEqual([thermo.node, thermo.basis], ['line-a', 'zone'], 'no coordinates: the device\'s zone decides');
  const missing = await fetch(`${served.url}/edgemap/closest`);
  t.is(missing.status, 400);
  t.regex(((await missing.json()) as { error: { message: string } }).error.message, /closest\?device=<namespace>\/<name>/);
  t.is((await fetch(`${served.url}/edgemap/closest?device=plant/nothing`)).status, 404);
  const node = await fetch(`${served.url}/edgemap/closest?device=line-a`);
  t.is(node.status, 400, 'a node is not a device');
  t.is((await fetch(`${served.url}/edgemap`)).status, 200, 'the router goes on serving');
});

test('GET /edgemap.dot answers Graphviz DOT', async (t) => {
  const map = plant();
  const served = await serve(map, { pageDir: '/nonexistent' });
  t.teardown(() => served.close());
  const res = await fetch(`${served.url}/edgemap.dot`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/vnd\.graphviz/);
  t.is(await res.text(), toDot(map));
});

test('the page answers 503 naming the build command until it is built, then the page with a strict CSP', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'edgemap-page-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const served = await serve(plant(), { pageDir: dir });
  t.teardown(() => served.close());
  const before = await fetch(`${served.url}/edgemap/`);
  t.is(before.status, 503);
  t.regex(await before.text(), /npm run build:page/);
  const built = await buildEdgeMapPage(dir);
  t.true(built.files['edgemap.js'] > 10_000, 'sigma and graphology are bundled in');
  const page = await fetch(`${served.url}/edgemap/`);
  t.is(page.status, 200);
  t.regex(await page.text(), /<script src="edgemap.js" defer>/);
  t.regex(page.headers.get('content-security-policy') ?? '', /default-src 'self'; script-src 'self'/);
  const script = await fetch(`${served.url}/edgemap/edgemap.js`);
  t.regex(script.headers.get('content-type') ?? '', /text\/javascript/);
  t.false((await script.text()).includes('https://cdn'), 'nothing fetched from elsewhere');
  t.is((await fetch(`${served.url}/edgemap/%2e%2e/package.json`)).status, 404);
});

test('the event stream sends a snapshot, then each change, with heartbeats, and forgets a client that leaves', async (t) => {
  const map = plant();
  const registry = new Registry();
  const served = await serve(map, { pageDir: '/nonexistent', heartbeatMs: 50, registry });
  t.teardown(() => served.close());
  const abort = new AbortController();
  const res = await fetch(`${served.url}/edgemap/events`, { signal: abort.signal });
  t.is(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const sse = new SseReader(res.body!);
  const snapshot = await waitFor('the snapshot event', () => sse.events.find((e) => e.event === 'snapshot'), { timeoutMs: 5000 });
  t.is(snapshot.id, String(map.seq));
  t.deepEqual(JSON.parse(snapshot.data!) as EdgeMapSnapshot, JSON.parse(JSON.stringify(toSnapshot(map))));
  t.is(await gauge(registry, 'edgeshifu_edgemap_stream_clients'), 1);

  map.upsertDevice('plant/scale', { phase: 'Pending', nodeName: 'line-b' });
  const change = await waitFor('the change event', () => sse.events.find((e) => e.event === 'change'), { timeoutMs: 5000 });
  const body = JSON.parse(change.data!) as EdgeMapChange;
  t.like(body, { seq: map.seq, op: 'vertex-upserted', vertex: { key: 'plant/scale', kind: 'edgeDevice' } });
  t.is(change.id, String(map.seq));
  await waitFor('a heartbeat', () => sse.events.find((e) => e.comment === 'heartbeat'), { timeoutMs: 5000 });

  abort.abort();
  await waitFor('the server to forget the client', async () => (await gauge(registry, 'edgeshifu_edgemap_stream_clients')) === 0 || undefined, { timeoutMs: 5000 });
  t.is(map.listenerCount, 0, 'no subscription left on the map');
});

test('two clients both hear a change; when one leaves the other still does', async (t) => {
  const map = plant();
  const registry = new Registry();
  const served = await serve(map, { pageDir: '/nonexistent', registry });
  t.teardown(() => served.close());
  const leaving = new AbortController();
  const a = new SseReader((await fetch(`${served.url}/edgemap/events`, { signal: leaving.signal })).body!);
  const staying = new AbortController();
  t.teardown(() => { staying.abort(); });
  const b = new SseReader((await fetch(`${served.url}/edgemap/events`, { signal: staying.signal })).body!);
  await waitFor('both snapshots', () => (a.events.length > 0 && b.events.length > 0) || undefined, { timeoutMs: 5000 });
  t.is(await gauge(registry, 'edgeshifu_edgemap_stream_clients'), 2);
  map.removeDevice('plant/agv');
  await waitFor('both hear the removal', () => [a, b].every((r) => r.events.some((e) => e.data?.includes('"vertex-removed"'))) || undefined, { timeoutMs: 5000 });
  leaving.abort();
  await waitFor('one client left', async () => (await gauge(registry, 'edgeshifu_edgemap_stream_clients')) === 1 || undefined, { timeoutMs: 5000 });
  map.upsertNode('line-c');
  await waitFor('the staying client hears line-c', () => b.events.find((e) => e.data?.includes('"line-c"')), { timeoutMs: 5000 });
  t.is(map.listenerCount, 1, 'one subscription serves every client');
});

test('a client that stops reading is dropped once it falls behind, and counted', async (t) => {
  const map = plant();
  const registry = new Registry();
  const served = await serve(map, { pageDir: '/nonexistent', maxBufferedBytes: 64 * 1024, registry });
  t.teardown(() => served.close());
  const closed = new Promise<void>((resolve) => {
    const req = request(`${served.url}/edgemap/events`, (res) => {
      res.pause(); // never reads: the socket buffers fill, then the server's
      res.on('close', () => { resolve(); });
    });
    req.on('error', () => { resolve(); });
    req.end();
  });
  await waitFor('the client to attach', async () => (await gauge(registry, 'edgeshifu_edgemap_stream_clients')) === 1 || undefined, { timeoutMs: 5000 });
  const url = `http://deviceshifu.example/${'x'.repeat(2000)}`;
  for (let i = 0; i < 40_000 && (await gauge(registry, 'edgeshifu_edgemap_stream_dropped_total')) === 0; i++) {
    map.upsertDevice(`load/d${i}`, { deviceShifuUrl: url });
    if (i % 100 === 0) await tick();
  }
  t.is(await gauge(registry, 'edgeshifu_edgemap_stream_dropped_total'), 1);
  await closed;
  t.is(await gauge(registry, 'edgeshifu_edgemap_stream_clients'), 0);
  t.is(map.listenerCount, 0);
});

test('aborting the router signal ends open streams and refuses new ones', async (t) => {
  const map = plant();
  const stop = new AbortController();
  const served = await serve(map, { pageDir: '/nonexistent', signal: stop.signal });
  t.teardown(() => served.close());
  const sse = new SseReader((await fetch(`${served.url}/edgemap/events`)).body!);
  await waitFor('the snapshot', () => sse.events[0], { timeoutMs: 5000 });
  stop.abort();
  await waitFor('the stream to end', () => sse.ended || undefined, { timeoutMs: 5000 });
  t.is((await fetch(`${served.url}/edgemap/events`)).status, 503);
  t.is(map.listenerCount, 0);
});
