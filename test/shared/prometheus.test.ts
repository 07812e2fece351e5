// The small Prometheus exposition (shared/prometheus.ts) writes what prom-client writes for the
// same counters and histograms, so a scrape of deviceShifu reads as before.
import test from 'ava';
import * as promClient from 'prom-client';
import { Counter, Histogram, Registry, escapeLabelValue, registerProcessMetrics } from '../../shared/prometheus.ts';

test('counters and histograms read exactly as prom-client writes them', async (t) => {
  const ours = new Registry();
  const theirs = new promClient.Registry();
  ours.setDefaultLabels({ component: 'deviceshifu' });
  theirs.setDefaultLabels({ component: 'deviceshifu' });
  const counterOptions = { name: 'edgeshifu_requests_total', help: 'Requests by instruction and status.', labelNames: ['instruction', 'status'] as const };
  const histogramOptions = { name: 'edgeshifu_latency_seconds', help: 'Latency.', labelNames: ['instruction'] as const, buckets: [0.001, 0.01, 0.1] };
  const counters = [new Counter({ ...counterOptions, registers: [ours] }), new promClient.Counter({ ...counterOptions, labelNames: [...counterOptions.labelNames], registers: [theirs] })];
  const histograms = [new Histogram({ ...histogramOptions, registers: [ours] }), new promClient.Histogram({ ...histogramOptions, labelNames: [...histogramOptions.labelNames], registers: [theirs] })];
  new Counter({ name: 'edgeshifu_plain_total', help: 'No labels: zero from the start.', registers: [ours] });
  new promClient.Counter({ name: 'edgeshifu_plain_total', help: 'No labels: zero from the start.', registers: [theirs] });
  new Histogram({ name: 'edgeshifu_plain_seconds', help: 'No labels either.', buckets: [1, 2], registers: [ours] });
  new promClient.Histogram({ name: 'edgeshifu_plain_seconds', help: 'No labels either.', buckets: [1, 2], registers: [theirs] });
  for (const counter of counters) {
    counter.inc({ instruction: 'read_value', status: '200' });
    counter.inc({ instruction: 'read_value', status: '200' }, 2);
    counter.inc({ instruction: 'get_status', status: '502' });
  }
  for (const histogram of histograms) {
    for (const seconds of [0.0005, 0.002, 0.002, 0.05, 3]) histogram.observe({ instruction: 'read_value' }, seconds);
  }
  const text = ours.metrics();
  t.is(text, await theirs.metrics());
  t.regex(text, /edgeshifu_requests_total\{instruction="read_value",status="200",component="deviceshifu"\} 3\n/);
  t.regex(text, /edgeshifu_latency_seconds_bucket\{le="0\.01",component="deviceshifu",instruction="read_value"\} 3\n/);
  t.regex(text, /edgeshifu_latency_seconds_bucket\{le="\+Inf",component="deviceshifu",instruction="read_value"\} 5\n/);
});

test('label values are escaped; unknown labels, decreasing counters and duplicate names are refused', (t) => {
  t.is(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
  const registry = new Registry();
  const counter = new Counter({ name: 'x_total', help: 'x', labelNames: ['instruction'], registers: [registry] });
  counter.inc({ instruction: 'say "hi"' });
  t.regex(registry.metrics(), /x_total\{instruction="say \\"hi\\""\} 1\n/);
  t.throws(() => { counter.inc({ instruction: 'a', nope: 'b' } as never); }, { message: 'metric x_total has no label nope' });
  t.throws(() => { counter.inc({}, -1); }, { message: 'counter x_total cannot decrease' });
  t.throws(() => new Counter({ name: 'x_total', help: 'again', registers: [registry] }), { message: 'metric x_total is already registered' });
});

test('a labelled metric with no samples yet shows its HELP and TYPE only', (t) => {
  const registry = new Registry();
  new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['instruction'], buckets: [1], registers: [registry] });
  t.is(registry.metrics(), '# HELP h_seconds h\n# TYPE h_seconds histogram\n');
});

test('process metrics are read at scrape time under the prefix', (t) => {
  const registry = new Registry();
  registerProcessMetrics(registry, 'edgeshifu_');
  const text = registry.metrics();
  const rss = Number(/^edgeshifu_process_resident_memory_bytes (\d+)$/m.exec(text)?.[1]);
  t.true(rss > 10 * 1024 * 1024 && rss < 4 * 1024 ** 3, `resident memory ${rss}`);
  t.regex(text, /^edgeshifu_process_cpu_seconds_total [\d.e-]+$/m);
  t.regex(text, /^edgeshifu_process_start_time_seconds \d{10}$/m);
  t.regex(text, /^edgeshifu_nodejs_heap_size_used_bytes \d+$/m);
  t.regex(text, /^edgeshifu_process_open_fds \d+$/m);
});
