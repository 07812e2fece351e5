// shouldWrite: a status write on the first sample, on a meaningful change (never closer than the
// minimum interval) and on the heartbeat — never per sample.
import test from 'ava';
import { shouldWrite, type NodeReport, type Thresholds, type Written } from '../../shifud/thresholds.ts';
import { nodeSample } from './harness.ts';

const T: Thresholds = { cpu: 0.1, memory: 0.05, disk: 0.05, heartbeatMs: 60_000, minIntervalMs: 10_000 };
const GiB = 2 ** 30;
const base: NodeReport = { sample: nodeSample(), ready: true, devicesKey: '' };
const written: Written = { ...base, at: 0 };

const report = (over: Partial<NodeReport> & { load?: number; memory?: number; disk?: number; cores?: number }): NodeReport => ({
  ready: over.ready ?? true,
  devicesKey: over.devicesKey ?? '',
  sample: nodeSample({
    cpu: { cores: over.cores ?? 4, loadPercent: over.load ?? 10 },
    memory: { totalBytes: 8 * GiB, availableBytes: (over.memory ?? 6) * GiB },
    disk: { totalBytes: 100 * GiB, availableBytes: (over.disk ?? 50) * GiB },
  }),
});

const CASES: ReadonlyArray<{ what: string; previous: Written | undefined; report: NodeReport; now: number; expected: unknown }> = [
  { what: 'the first sample', previous: undefined, report: base, now: 0, expected: { write: true, reason: 'first' } },
  { what: 'an unchanged sample', previous: written, report: base, now: 30_000, expected: { write: false } },
  { what: 'an unchanged sample at the heartbeat', previous: written, report: base, now: 60_000, expected: { write: true, reason: 'heartbeat' } },
  { what: 'CPU load up by 5 points (0.2 of 4 cores)', previous: written, report: report({ load: 15 }), now: 30_000, expected: { write: false } },
  { what: 'CPU load up by 15 points (0.6 of 4 cores)', previous: written, report: report({ load: 25 }), now: 30_000, expected: { write: true, reason: 'cpu' } },
  { what: 'memory down by 0.25 GiB of 8 (3%)', previous: written, report: report({ memory: 5.75 }), now: 30_000, expected: { write: false } },
  { what: 'memory down by 1 GiB of 8 (12.5%)', previous: written, report: report({ memory: 5 }), now: 30_000, expected: { write: true, reason: 'memory' } },
  { what: 'disk down by 10 GiB of 100', previous: written, report: report({ disk: 40 }), now: 30_000, expected: { write: true, reason: 'disk' } },
  { what: 'a core more', previous: written, report: report({ cores: 5 }), now: 30_000, expected: { write: true, reason: 'capacity' } },
  { what: 'not ready any more', previous: written, report: report({ ready: false }), now: 30_000, expected: { write: true, reason: 'ready' } },
  { what: 'a new device seen', previous: written, report: report({ devicesKey: 'ns/plc:Ethernet' }), now: 30_000, expected: { write: true, reason: 'devices' } },
  { what: 'a big change within the minimum interval', previous: written, report: report({ load: 90, memory: 1 }), now: 9_999, expected: { write: false } },
  { what: 'a big change right at the minimum interval', previous: written, report: report({ load: 90 }), now: 10_000, expected: { write: true, reason: 'cpu' } },
];

for (const c of CASES) {
  test(`shouldWrite on ${c.what}`, (t) => {
    t.deepEqual(shouldWrite(c.previous, c.report, T, c.now), c.expected);
  });
}

test('a sample stream flipping every second is written once per minimum interval', (t) => {
  let last: Written | undefined;
  let writes = 0;
  for (let now = 0; now < 600_000; now += 1000) {
    const r = report({ load: (now / 1000) % 2 === 0 ? 5 : 95 });
    if (shouldWrite(last, r, T, now).write) {
      writes += 1;
      last = { ...r, at: now };
    }
  }
  // at most one per 10 s; when the 10 s mark lands on the load last written, the next second writes
  t.true(writes <= 600_000 / T.minIntervalMs);
  t.is(writes, 55);
});
