// The controller's scrape on shared/prometheus.ts: gauges read as prom-client wrote them, every
// runner shares one set of reconcile series, and the edgeMap's content negotiation (no express).
import test from 'ava';
import * as promClient from 'prom-client';
import { Writable } from 'node:stream';
import { getHeapStatistics } from 'node:v8';
import { Gauge, Registry } from '../../shared/prometheus.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import { Runner } from '../../controller/runner.ts';
import { controllerRegistry } from '../../controller/metrics.ts';
import { createLogger } from '../../shared/log.ts';
import { prefersHtml } from '../../edgemap/http/router.ts';
import { waitFor } from '../support/wait.ts';
import { sampleSum } from '../support/controller.ts';

test('gauges, labelled and not, read exactly as prom-client writes them', async (t) => {
  const ours = new Registry();
  const theirs = new promClient.Registry();
  ours.setDefaultLabels({ component: 'controller' });
  theirs.setDefaultLabels({ component: 'controller' });
  const depth = { name: 'edgeshifu_workqueue_depth', help: 'Keys waiting per controller', labelNames: ['controller'] };
  const ourDepth = new Gauge({ ...depth, registers: [ours] });
  const theirDepth = new promClient.Gauge({ ...depth, registers: [theirs] });
  const ourLeader = new Gauge({ name: 'edgeshifu_leader', help: '1 while this replica leads', registers: [ours] });
  const theirLeader = new promClient.Gauge({ name: 'edgeshifu_leader', help: '1 while this replica leads', registers: [theirs] });
  t.is(ours.metrics(), await theirs.metrics(), 'before any set');
  ourDepth.set({ controller: 'edgedevice' }, 3);
  theirDepth.set({ controller: 'edgedevice' }, 3);
  ourDepth.set({ controller: 'edgedevice' }, 2);
  theirDepth.set({ controller: 'edgedevice' }, 2);
  ourLeader.set({}, 1);
  theirLeader.set(1);
  const text = ours.metrics();
  t.is(text, await theirs.metrics());
  t.regex(text, /edgeshifu_workqueue_depth\{controller="edgedevice",component="controller"\} 2\n/);
  t.regex(text, /edgeshifu_leader\{component="controller"\} 1\n/);
});

test('two runners on one registry share the reconcile series, told apart by label; a prom-client registry is refused', async (t) => {
  const registry = controllerRegistry();
  const logger = createLogger('test', { level: 'silent' });
  const make = (name: string, fail: boolean): Runner => new Runner({ name, workers: 1, logger, registry, reconcile: () => (fail ? Promise.reject(new Error('no')) : Promise.resolve({})) });
  const ok = make('edgedevice', false);
  const bad = make('hostrequest', true);
  ok.start();
  bad.start();
  t.teardown(async () => { await ok.stop(); await bad.stop(); });
  ok.queue.add('a');
  bad.queue.add('b');
  await waitFor('both passes counted', () => (sampleSum(registry, 'edgeshifu_reconcile_total') >= 2 ? true : undefined));
  const text = registry.metrics();
  t.regex(text, /edgeshifu_reconcile_total\{controller="edgedevice",result="success",component="controller"\} 1\n/);
  t.regex(text, /edgeshifu_reconcile_total\{controller="hostrequest",result="error",component="controller"\} 1\n/);
  t.regex(text, /edgeshifu_reconcile_duration_seconds_count\{component="controller",controller="edgedevice"\} 1\n/);
  t.is(text.match(/# TYPE edgeshifu_reconcile_total /g)?.length, 1, 'one family, not one per runner');
  t.regex(text, /edgeshifu_process_resident_memory_bytes\{component="controller"\} \d+/);
});

test('the scrape reads V8\'s old generation against its limit, and follows what the heap holds', (t) => {
  const registry = controllerRegistry();
  const read = (name: string): number => Number(new RegExp(`^${name}\\{component="controller"\\} (\\d+)$`, 'm').exec(registry.metrics())?.[1] ?? NaN);
  const limit = read('edgeshifu_nodejs_heap_size_limit_bytes');
  t.is(limit, getHeapStatistics().heap_size_limit);
  const before = read('edgeshifu_nodejs_old_generation_used_bytes');
  t.true(before > 0 && before < limit, `old generation ${String(before)} of ${String(limit)}`);
  t.true(read('edgeshifu_nodejs_old_generation_size_bytes') >= before, 'committed is at least what is used');
  // 16 MB of doubles held in one array (on the heap, unlike a typed array's buffer): a large object, so old generation
  const held = new Array<number>(2 * 1024 * 1024).fill(1.5);
  const after = read('edgeshifu_nodejs_old_generation_used_bytes');
  t.true(after - before >= 15 * 1024 * 1024, `old generation ${String(before)} → ${String(after)} with 16 MB held`);
  t.is(held[0], 1.5);
});

test('a write that lost an optimistic-concurrency race is retried and counted as a conflict, not logged as an error', async (t) => {
  const registry = controllerRegistry();
  const lines: string[] = [];
  const logger = createLogger('test', { level: 'debug', destination: new Writable({ write(chunk: Buffer, _e, done) { lines.push(chunk.toString()); done(); } }) });
  let calls = 0;
  const runner = new Runner({ name: 'edgedevice', workers: 1, logger, registry, reconcile: () => {
    calls += 1;
    return calls === 1 ? Promise.reject(new EdgeshifuError('conflict', 'patch status of devices/a: the object has been modified')) : Promise.resolve({});
  } });
  runner.start();
  t.teardown(() => runner.stop());
  runner.queue.add('devices/a');
  await waitFor('the retry to succeed', () => (sampleSum(registry, 'edgeshifu_reconcile_total') >= 2 ? true : undefined));
  const text = registry.metrics();
  t.regex(text, /edgeshifu_reconcile_total\{controller="edgedevice",result="conflict",component="controller"\} 1\n/);
  t.regex(text, /edgeshifu_reconcile_total\{controller="edgedevice",result="success",component="controller"\} 1\n/);
  t.false(text.includes('result="error"'));
  const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string; key?: string });
  t.deepEqual(logged.map((l) => [l.level, l.msg, l.key]), [['debug', 'write raced another; retrying', 'devices/a']]);
});

test('GET /edgemap negotiation: a browser gets the page, other clients (and ties) the JSON', (t) => {
  t.true(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'));
  t.true(prefersHtml('text/html,*/*;q=0.8'));
  t.false(prefersHtml(undefined));
  t.false(prefersHtml('*/*'));
  t.false(prefersHtml('application/json'));
  t.false(prefersHtml('application/json, text/html;q=0.5'));
  t.false(prefersHtml('text/*;q=0.5, application/*'));
  t.true(prefersHtml('text/*, application/json;q=0.1'));
});
