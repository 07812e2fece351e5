// Offloading end to end: two real control planes with KWOK nodes, both controllers
// in this process with DRONE on; a resource-poor cluster `a` offloads N two-component apps, one
// after another, to `b`. Per request: created → PENDING (the agreement, written) → RUNNING (both
// components LAUNCHED: Deployments available on b's KWOK nodes, Services and EndpointSlice on a).
// Baseline in the same run: a plain Deployment created on b → available (Kubernetes alone).
// b's KWOK node is sized for the run (slices count pods, and half of b is offered): at least 64
// cpu and 1,000 pods, and twice what the apps request; at a kubelet's 110 pods b's slice would run
// out at the 28th app and the later ones would fail with no cluster to host them.
// Every --window apps it prints where their time went, step by step, and what each app cost
// (reconciles, API requests, bus messages, event loop delay): bench/offload-trace.ts.
// Usage: npm run bench:offload -- [--requests 100] [--baseline 20] [--window 25]
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { waitFor } from '../test/support/wait.ts';
import { createApp, startFederation, type Member } from '../test/offload/support.ts';
import { baseline, benchApp, benchContext, benchMembers, floorBaseline, percentile, row } from './offload-common.ts';
import type { DroneFederatedDeployment } from '../controller/offload/workload.ts';
import { appSteps, CostWindow, countRequests, requestsByResource, STEP_ORDER, traceSteps } from './offload-trace.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '100' }, baseline: { type: 'string', default: '20' }, window: { type: 'string', default: '25' } } });
const WINDOW = Number(values.window);
const REQUESTS = Number(values.requests);
const BASELINE = Number(values.baseline);

/** Timestamps of each phase a's cache sees, per deployment name. */
function phaseClock(a: Member): Map<string, Map<string, number>> {
  const seen = new Map<string, Map<string, number>>();
  const note = (d: DroneFederatedDeployment): void => {
    const name = d.metadata.name ?? '';
    const phase = d.status?.phase;
    if (phase === undefined) return;
    const times = seen.get(name) ?? new Map<string, number>();
    if (!times.has(phase)) times.set(phase, performance.now());
    seen.set(name, times);
  };
  a.controller.controller.offloader?.deployments.on('add', note);
  a.controller.controller.offloader?.deployments.on('update', note);
  return seen;
}

const { t, done } = benchContext();
let members: Member[] = [];
countRequests();
try {
  const specs = benchMembers(REQUESTS, BASELINE);
  const [a, b] = await startFederation(t, specs);
  if (a === undefined || b === undefined) throw new Error('no federation');
  members = [a, b];
  await waitFor('a to hear b', () => (a.controller.controller.offloader?.federation.agent.providers().includes('b') === true ? true : undefined), { timeoutMs: 30_000 });
  const kubernetesOnly = await baseline(b, BASELINE);
  const floor = await floorBaseline(b, BASELINE);
  const clock = phaseClock(a);
  const steps = traceSteps(a, b);
  const costs = new CostWindow([a, b]);
  const windowSteps = new Map<string, number[]>();
  const agreement: number[] = [];
  const kubernetes: number[] = [];
  const total: number[] = [];
  const slowest: Array<{ name: string; total: number; path: string }> = [];
  for (let i = 0; i < REQUESTS; i += 1) {
    const name = `app-${i}`;
    const start = performance.now();
    const body = benchApp(name, i);
    await createApp(a.kube, body);
    await waitFor(`${name} RUNNING`, () => clock.get(name)?.get('RUNNING'), { timeoutMs: 120_000, intervalMs: 5 }).catch((err: unknown) => {
      for (const m of [a, b]) writeFileSync(join(tmpdir(), `edgeshifu-bench-offload-${m.id}.log`), m.controller.logs.join(''));
      throw err;
    });
    const times = clock.get(name);
    const pending = times?.get('PENDING') ?? Number.NaN;
    const running = times?.get('RUNNING') ?? Number.NaN;
    agreement.push(pending - start);
    kubernetes.push(running - pending);
    total.push(running - start);
    // one line per request: a slow one shows where it stalled, and a run cut short keeps its figures
    const phases = [...(times ?? new Map<string, number>())].map(([phase, at]) => `${phase} +${(at - start).toFixed(0)}`).join(', ');
    let previous = 0;
    const path: string[] = [];
    for (const [step, at] of [...appSteps(steps.get(name), start)].sort(([x], [y]) => STEP_ORDER.indexOf(x) - STEP_ORDER.indexOf(y))) {
      windowSteps.set(step, [...(windowSteps.get(step) ?? []), at - previous]);
      path.push(`${step} ${(at - previous).toFixed(0)}`);
      previous = at;
    }
    console.error(`${name}: ${phases} ms; steps ${path.join(', ')}`);
    slowest.push({ name, total: running - start, path: path.join(', ') });
    if ((i + 1) % WINDOW === 0 || i + 1 === REQUESTS) {
      const first = i + 1 - (windowSteps.get('a RUNNING')?.length ?? 0);
      const mean = (xs: readonly number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;
      console.log(`apps ${String(first)}–${String(i)}: step means (ms since the step before) ${STEP_ORDER.map((s) => `${s} ${mean(windowSteps.get(s) ?? []).toFixed(0)}`).join(', ')}`);
      console.log(`apps ${String(first)}–${String(i)}: ${costs.take(i + 1 - first)}`);
      windowSteps.clear();
    }
  }
  console.log(`offloading: ${REQUESTS} two-component apps, a (500m) → b (${specs[1]?.cpu ?? '?'} cpu KWOK), one at a time`);
  console.log(row('created → PENDING (agreement)', agreement));
  console.log(row('PENDING → RUNNING (Kubernetes)', kubernetes));
  console.log(row('created → RUNNING (end to end)', total));
  console.log(row('baseline: plain Deployment on b', kubernetesOnly));
  console.log(row('floor: db then api, plain, on b', floor));
  console.log(requestsByResource([a, b], REQUESTS));
  // the p99's apps: where each one's time went, step by step (ms since the step before)
  for (const app of slowest.sort((x, y) => y.total - x.total).slice(0, Math.max(1, Math.ceil(REQUESTS / 100)))) console.log(`slowest ${app.name} ${app.total.toFixed(0)} ms: ${app.path}`);
  const share = percentile(agreement, 50) / percentile(total, 50);
  console.log(`agreement share of p50: ${(share * 100).toFixed(0)}%; end-to-end p50 / baseline p50: ×${(percentile(total, 50) / percentile(kubernetesOnly, 50)).toFixed(2)}, / floor p50: ×${(percentile(total, 50) / percentile(floor, 50)).toFixed(2)}; p99 / floor p99: ×${(percentile(total, 99) / percentile(floor, 99)).toFixed(2)}`);
} finally {
  // BENCH_LOGS=dir keeps both controllers' logs, to read where a slow request waited
  const dir = process.env.BENCH_LOGS;
  if (dir !== undefined) for (const m of members) writeFileSync(join(dir, `offload-${m.id}.log`), m.controller.logs.join(''));
  await done();
}
