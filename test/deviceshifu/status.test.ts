// The EdgeDevice phase: judged from evidence (table), and written only on change, at most once per
// interval, failures retried (Shifu writes every device every second).
import test from 'ava';
import { createLogger } from '../../shared/log.ts';
import type { EdgeDevicePhase } from '../../shared/crds/edgedevice.ts';
import type { HealthSnapshot } from '../../deviceshifu/status/health.ts';
import { judgePhase } from '../../deviceshifu/status/phase.ts';
import { StatusWriter } from '../../deviceshifu/status/writer.ts';
import { waitFor } from '../support/wait.ts';
import { logSink } from './support/device-shifu.ts';

const NOW = 100_000;
const ok = (ago: number): { ok: boolean; at: number } => ({ ok: true, at: NOW - ago });
const bad = (ago: number): { ok: boolean; at: number } => ({ ok: false, at: NOW - ago });

const PHASES: ReadonlyArray<[string, boolean, HealthSnapshot, EdgeDevicePhase]> = [
  ['nothing seen yet', true, {}, 'Pending'],
  ['nothing seen yet, no telemetry', false, {}, 'Pending'],
  ['telemetry ok', true, { telemetry: ok(10) }, 'Running'],
  ['telemetry failing', true, { telemetry: bad(10) }, 'Failed'],
  ['telemetry failing though requests work', true, { telemetry: bad(10), request: ok(5) }, 'Failed'],
  ['telemetry stale', true, { telemetry: ok(60_000) }, 'Unknown'],
  ['no telemetry, requests ok', false, { request: ok(10) }, 'Running'],
  ['no telemetry, probe ok', false, { probe: ok(10) }, 'Running'],
  ['no telemetry, device unreachable: Unknown, never Failed', false, { probe: bad(10) }, 'Unknown'],
  ['no telemetry, the latest evidence wins', false, { probe: bad(100), request: ok(10) }, 'Running'],
  ['no telemetry, a later failure wins', false, { probe: ok(100), request: bad(10) }, 'Unknown'],
  ['no telemetry, stale evidence', false, { probe: ok(60_000) }, 'Unknown'],
];

for (const [what, hasTelemetry, snapshot, phase] of PHASES) {
  test(`phase: ${what} → ${phase}`, (t) => {
    t.is(judgePhase(snapshot, { now: NOW, hasTelemetry, staleMs: 30_000 }), phase);
  });
}

function writer(patch: (phase: EdgeDevicePhase) => Promise<void>, minIntervalMs: number): { writer: StatusWriter; results: string[] } {
  const results: string[] = [];
  const w = new StatusWriter({ patch, minIntervalMs, logger: createLogger('test', { destination: logSink([]) }), onWrite: (r) => results.push(r) });
  return { writer: w, results };
}

test('the phase is written at once, then only on change and at most once per interval', async (t) => {
  const writes: Array<{ phase: EdgeDevicePhase; at: number }> = [];
  const { writer: w } = writer((phase) => { writes.push({ phase, at: performance.now() }); return Promise.resolve(); }, 300);
  t.teardown(() => { w.stop(); });
  w.set('Running');
  await waitFor('the first write', () => writes[0]);
  for (const phase of ['Running', 'Failed', 'Running', 'Unknown', 'Failed'] as const) w.set(phase);
  await waitFor('the coalesced write', () => writes[1], { timeoutMs: 5000 });
  t.deepEqual(writes.map((x) => x.phase), ['Running', 'Failed']);
  t.true((writes[1]?.at ?? 0) - (writes[0]?.at ?? 0) >= 300 - 5);
  w.set('Failed');
  t.false(w.pending, 'setting the phase already written schedules nothing');
  w.set('Running');
  t.true(w.pending);
  w.set('Failed');
  t.false(w.pending, 'a change undone before its write is never written');
  t.is(writes.length, 2);
});

test('a phase the API server already holds is not written again', async (t) => {
  const writes: EdgeDevicePhase[] = [];
  const { writer: w } = writer((phase) => { writes.push(phase); return Promise.resolve(); }, 50);
  t.teardown(() => { w.stop(); });
  w.observed('Running');
  w.set('Running');
  w.set('Unknown');
  await waitFor('the change to be written', () => writes[0]);
  t.deepEqual(writes, ['Unknown']);
});

test('a failed write is counted and retried after the interval', async (t) => {
  let attempts = 0;
  const { writer: w, results } = writer(() => {
    attempts += 1;
    return attempts === 1 ? Promise.reject(new Error('API server down')) : Promise.resolve();
  }, 100);
  t.teardown(() => { w.stop(); });
  w.set('Running');
  await waitFor('the retry to succeed', () => (results.includes('ok') ? true : undefined), { timeoutMs: 5000 });
  t.deepEqual(results, ['error', 'ok']);
});
