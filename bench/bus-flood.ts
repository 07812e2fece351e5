// A neighbour that floods (controller/drone/README.md, "Transport and abuse"): clusters o, p1, p2
// and p3 (aedes brokers on loopback, relays, DRONE agents, in this process) and f, a neighbour
// with a valid login that publishes slice adverts and votes as fast as it can onto o's and p1's
// brokers from a child process of its own. o puts jobs to auction one at a time; each job's time
// from submission to placement is the agreement latency of the neighbours that behave. Rows, in
// one run: no flood (the baseline), the flood with the default token buckets, and the flood with
// no limits. Printed: the flood's rate, what o let through from f per second, and latency p50/p99.
// Run: flock /tmp/edgeshifu-bench.lock npm run bench:bus-flood   (BENCH_JOBS, default 200 per row;
// BENCH_SECONDS, default 60, ends a row sooner)
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Registry } from '../shared/prometheus.ts';
import { samples } from '../test/support/metric-samples.ts';
import { busMetrics, type BusMetrics } from '../shared/bus/metrics.ts';
import { broadcastTopic } from '../shared/bus/topics.ts';
import { droneBusClient } from '../controller/drone/bus.ts';
import { droneCodec } from '../controller/drone/messages/index.ts';
import { brokerPace, DEFAULT_BROKER_PACE, DEFAULT_RATE_LIMITS, rateLimits } from '../controller/offload/settings.ts';
import { password } from '../test/drone/support/brokers.ts';
import { startFederation, waitForAdverts } from '../test/drone/support/federation.ts';
import type { DroneEvent } from '../controller/drone/agent-core.ts';
import { component, job } from '../test/drone/support/jobs.ts';

const JOBS = Number(process.env.BENCH_JOBS ?? 200);
/** A row also ends after this long (the row without limits can take seconds per job). */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const PROVIDERS = ['p1', 'p2', 'p3'];
const IDS = ['o', ...PROVIDERS, 'f'];

/** The flooder (child process): valid messages from f, as fast as the sockets take them, until told to stop. */
async function flood(urls: string[]): Promise<void> {
  const codec = droneCodec();
  const clients = urls.map((url) => droneBusClient({ url, cluster: 'f', username: 'f', password: password('f'), link: `flood-${url}` }, codec));
  for (const c of clients) await c.start();
  const state = { stop: false };
  let sent = 0;
  process.on('message', (m: string) => { if (m === 'stop') state.stop = true; });
  process.send?.('ready');
  for (let i = 0; !state.stop; i++) {
    const advert = { kind: 'slice-advert' as const, offered: { cpu: 1, memory: 1 }, seq: i, ttlMs: 15_000 };
    const votes = { kind: 'votes' as const, app: `junk-${i}`, baseCluster: 'f', entries: [{ component: 'c', cluster: 'f', value: 100, timestamp: Date.now() }], winners: { c: 'f' }, round: i };
    await Promise.all(clients.flatMap((c) => [c.publish(broadcastTopic('f', 'slice-advert'), advert), c.publish(broadcastTopic('f', 'votes'), votes)]));
    sent += 2 * clients.length;
  }
  process.send?.(sent);
  for (const c of clients) await c.stop();
  process.exit(0);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function row(name: string, slug: string, opts: { flood: boolean; limited: boolean }): Promise<void> {
  const cleanups: Array<() => Promise<void> | void> = [];
  const metrics = new Map<string, BusMetrics & { registry: Registry }>();
  for (const id of IDS) { const registry = new Registry(); metrics.set(id, { ...busMetrics(registry), registry }); }
  const limits = opts.limited ? { limits: rateLimits(DEFAULT_RATE_LIMITS) } : {};
  try {
    const clusters = await startFederation({
      ids: IDS, hosted: ['o', ...PROVIDERS], edges: [['o', 'p1'], ['o', 'p2'], ['o', 'p3'], ['p1', 'p2']],
      free: (id) => (id === 'o' ? { cpu: 0, memory: 0 } : { cpu: 1_000_000, memory: 1_000_000 }),
      brokerUrl: (id) => (id === 'f' ? 'mqtt://127.0.0.1:9' : undefined),
      bus: (id) => ({ metrics: metrics.get(id)!, ...limits }),
      ...(opts.limited ? { pace: brokerPace(DEFAULT_BROKER_PACE) } : {}),
    }, (fn) => cleanups.push(fn));
    await waitForAdverts(clusters, PROVIDERS);
    const o = clusters.get('o')!;
    let fromF = 0;
    await o.client.subscribe(['edgeshifu/v1/f/fed/#'], () => { fromF += 1; });
    let child: ReturnType<typeof fork> | undefined;
    if (opts.flood) {
      // A row that fails must not leave the flooder running: it goes with the row's cleanups.
      cleanups.push(() => { if (child?.exitCode === null) child.kill(); });
      child = fork(fileURLToPath(import.meta.url), ['--flooder', o.url, clusters.get('p1')!.url], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      await new Promise<void>((resolve) => { child!.once('message', () => { resolve(); }); });
    }
    const started = performance.now();
    const latencies: number[] = [];
    const failed: string[] = [];
    for (let i = 0; i < JOBS && performance.now() - started < SECONDS * 1000; i++) {
      const app = `${slug}-${i}`;
      const decided = new Promise<DroneEvent>((resolve) => {
        const on = (e: DroneEvent): void => { if ((e.type === 'placed' || e.type === 'failed') && e.app === app) { o.agent.off('decision', on); resolve(e); } };
        o.agent.on('decision', on);
      });
      const t0 = performance.now();
      o.agent.submit(job(app, 'o', [component('c', 100, 64)]));
      const outcome = await decided;
      if (outcome.type !== 'placed') {
        failed.push(`#${String(i)} ${outcome.type === 'failed' ? outcome.reason : outcome.type}`);
        continue;
      }
      latencies.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    let sent = 0;
    if (child !== undefined) {
      const running = child;
      const done = new Promise<number>((resolve) => { running.on('message', (m) => { if (typeof m === 'number') resolve(m); }); });
      child.send('stop');
      sent = await done;
    }
    const limited = samples(metrics.get('o')!.registry, 'edgeshifu_bus_messages_limited_total').reduce((s, v) => s + v.value, 0);
    const slow = latencies.map((l, i) => [i, l] as const).filter(([, l]) => l > 100).map(([i, l]) => `#${String(i)} ${l.toFixed(0)} ms`);
    latencies.sort((a, b) => a - b);
    console.log([
      name.padEnd(22), `${String(latencies.length)} placed, ${String(failed.length)} failed`, `p50 ${percentile(latencies, 50).toFixed(2)} ms`, `p99 ${percentile(latencies, 99).toFixed(2)} ms`,
      `f wrote ${(sent / seconds).toFixed(0)}/s (to both brokers)`, `o accepted from f ${(fromF / seconds).toFixed(1)}/s`, `o limited ${(limited / seconds).toFixed(0)}/s`, `o's broker held ${String(o.broker?.paced ?? 0)} publishes`,
      `load ${loadavg()[0]?.toFixed(2) ?? '?'}`,
    ].join('  '));
    if (failed.length > 0) console.log(`  failed: ${failed.slice(0, 5).join('; ')}`);
    if (slow.length > 0) console.log(`  over 100 ms: ${slow.slice(0, 10).join(', ')}${slow.length > 10 ? ` and ${String(slow.length - 10)} more` : ''}`);
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

if (process.argv[2] === '--flooder') {
  await flood(process.argv.slice(3));
} else {
  console.log(`bus flood: ${JOBS} jobs per row, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, limits "${DEFAULT_RATE_LIMITS}"`);
  await row('no flood (baseline)', 'base', { flood: false, limited: true });
  await row('flood, limits on', 'limited', { flood: true, limited: true });
  await row('flood, no limits', 'unlimited', { flood: true, limited: false });
  console.log(`load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}
