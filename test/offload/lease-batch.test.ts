// The pure core of batched lease renewal (controller/offload/lease-batch.ts; README, "Leases"):
// one renewal per host and round, the digest both sides compute, the host's one answer, and the
// origin's reading of it. The messages go through the real codec (schema and payload bound).
import test from 'ava';
import { answerRenewal, ANSWER_BYTES, leaseDigest, olderHosts, renewalBatches, renewedReports, type HeldLease } from '../../controller/offload/lease-batch.ts';
import type { LeaseBody } from '../../controller/offload/origin-plan.ts';
import { droneCodec, type LeaseRenewedMessage } from '../../controller/drone/messages/index.ts';
import { MAX_RENEWALS } from '../../controller/drone/messages/lease-renewal.ts';
import { MAX_PAYLOAD_BYTES } from '../../shared/bus/codec.ts';

const lease = (i: number, component: string, to = 'b', change: Partial<LeaseBody> = {}): LeaseBody => ({
  kind: 'lease', to, app: `apps.app-${String(i)}.1`, component, revision: `rev${String(i)}`, workload: { spec: {} },
  launch: component === 'db', dependencies: component === 'api' ? { db: '10.0.0.2:30001' } : {}, leaseSeconds: 60, ...change,
});

const envelope = (sender: string, n: number): { v: 1; id: string; sender: string; timestamp: number; hops: number } => ({ v: 1 as const, id: `msg-${String(n).padStart(8, '0')}`, sender, timestamp: 1_000, hops: 0 });

test('a round of 300 two-component apps is one renewal per host, every lease named once by its digest', (t) => {
  const leases = Array.from({ length: 300 }, (_, i) => [lease(i, 'db', i % 3 === 0 ? 'c' : 'b'), lease(i, 'api', i % 3 === 0 ? 'c' : 'b')]).flat();
  const batches = renewalBatches(leases, 60);
  t.deepEqual(batches.map((b) => [b.to, b.leases.length]), [['b', 400], ['c', 200]]);
  t.is(new Set(batches.flatMap((b) => b.leases.map((l) => `${l.app}/${l.component}`))).size, 600);
  t.is(batches[0]?.leases[0]?.digest, leaseDigest(leases[2] ?? lease(0, 'db')));
  const codec = droneCodec();
  for (const [n, batch] of batches.entries()) {
    const bytes = codec.encode({ ...envelope('a', n), ...batch });
    t.true(codec.decode(bytes).ok, 'the schema takes it');
  }
  // past MAX_RENEWALS a host gets more than one, each within the schema's bound
  const many = renewalBatches(Array.from({ length: MAX_RENEWALS + 1 }, (_, i) => lease(i, 'db')), 60);
  t.deepEqual(many.map((b) => b.leases.length), [MAX_RENEWALS, 1]);
  t.deepEqual(renewalBatches([], 60), []);
});

test('the digest is of the terms, not of how they were written: the API server\'s key order and an absent field agree', (t) => {
  const sent = { revision: 'r1', launch: true, dependencies: { db: '10.0.0.2:30001', mq: '10.0.0.3:30002' }, leaseSeconds: 60 };
  const stored = { leaseSeconds: 60, dependencyPorts: {}, dependencies: { mq: '10.0.0.3:30002', db: '10.0.0.2:30001' }, launch: true, revision: 'r1' };
  t.is(leaseDigest(sent), leaseDigest(stored));
  t.not(leaseDigest(sent), leaseDigest({ ...sent, revision: 'r2' }), 'a MOD');
  t.not(leaseDigest(sent), leaseDigest({ ...sent, launch: false }), 'go not said yet');
  t.not(leaseDigest(sent), leaseDigest({ ...sent, dependencies: { db: '10.0.0.9:30001' } }), 'a dependency moved');
  t.not(leaseDigest(sent), leaseDigest({ ...sent, dependencyPorts: { db: [{ name: 'pg', port: 5432, at: 30001 }] } }));
  t.not(leaseDigest(sent), leaseDigest({ ...sent, leaseSeconds: 30 }));
  t.regex(leaseDigest(sent), /^[A-Za-z0-9_-]{22}$/);
});

test('the host renews every lease it holds and answers once: the status it last told, stale when its terms differ, GONE when not hosted', (t) => {
  const db = lease(1, 'db');
  const api = lease(1, 'api');
  const told = { phase: 'LAUNCHED' as const, endpoint: '10.0.0.5:30100', revision: 'rev1' };
  const held = new Map<string, HeldLease>([
    ['apps.app-1.1/db', { key: 'drone-a/db-1', spec: db, told, hosted: true }],
    ['apps.app-1.1/api', { key: 'drone-a/api-1', spec: { ...api, revision: 'older' }, told, hosted: true }],
    ['apps.app-2.1/db', { key: 'drone-a/db-2', spec: lease(2, 'db'), hosted: true }],
    ['apps.app-3.1/db', { key: 'drone-a/db-3', hosted: true }],
    ['apps.app-4.1/db', { key: 'drone-a/db-4', hosted: false }],
  ]);
  const names = [[1, 'db'], [1, 'api'], [2, 'db'], [3, 'db'], [4, 'db']] as const;
  const msg = { sender: 'a', leases: names.map(([i, c]) => ({ app: `apps.app-${String(i)}.1`, component: c, digest: leaseDigest(lease(i, c)) })) };
  const outcome = answerRenewal(msg, (app, component) => held.get(`${app}/${component}`) ?? { key: '?', hosted: false }, 'b');
  t.deepEqual(outcome.renewed, ['drone-a/db-1', 'drone-a/api-1', 'drone-a/db-2'], 'every lease with a HostRequest is renewed, stale or not');
  t.deepEqual(outcome.reconcile, ['drone-a/db-2'], 'not reported yet: its reconcile tells');
  t.is(outcome.answers.length, 1, 'one answer');
  t.deepEqual(outcome.answers[0]?.leases, [
    { app: 'apps.app-1.1', component: 'db', ...told },
    { app: 'apps.app-1.1', component: 'api', stale: true },
    { app: 'apps.app-3.1', component: 'db', stale: true },
    { app: 'apps.app-4.1', component: 'db', phase: 'GONE', reason: 'b does not host db of apps.app-4.1' },
  ]);
  t.is(outcome.answers[0]?.to, 'a');
  const quiet = answerRenewal({ sender: 'a', leases: [msg.leases[2] ?? { app: '', component: '', digest: '' }] }, (app, component) => held.get(`${app}/${component}`) ?? { key: '?', hosted: false }, 'b');
  t.deepEqual(quiet.answers, [{ kind: 'lease-renewed', to: 'a', leases: [] }], 'nothing to say: still one answer, so the origin knows this host takes renewals');
  t.true(droneCodec().decode(droneCodec().encode({ ...envelope('b', 9), ...quiet.answers[0] } as LeaseRenewedMessage)).ok);
});

test('long answers are split under the bus\'s payload bound, each through the codec', (t) => {
  const ports = Array.from({ length: 16 }, (_, p) => ({ name: `port-${String(p)}`, port: 8000 + p, at: 30000 + p }));
  const told = { phase: 'FAILED' as const, endpoint: '10.0.0.5:30000', ports, revision: 'r'.repeat(64), reason: 'x'.repeat(1024) };
  const leases = Array.from({ length: MAX_RENEWALS }, (_, i) => ({ app: `apps.app-${String(i)}.1`, component: 'db', digest: leaseDigest(lease(i, 'db')) }));
  const outcome = answerRenewal({ sender: 'a', leases }, (app) => ({ key: app, spec: lease(Number(/app-(\d+)/.exec(app)?.[1]), 'db'), told, hosted: true }), 'b');
  t.true(outcome.answers.length > 1);
  t.is(outcome.answers.reduce((n, a) => n + a.leases.length, 0), MAX_RENEWALS);
  const codec = droneCodec();
  for (const [n, answer] of outcome.answers.entries()) {
    const bytes = codec.encode({ ...envelope('b', n), ...answer });
    t.true(bytes.length <= MAX_PAYLOAD_BYTES && JSON.stringify(answer.leases).length <= ANSWER_BYTES + 2);
    t.true(codec.decode(bytes).ok);
  }
});

test('the origin reads an answer as the host-status of each lease, and the stale ones to send in full again', (t) => {
  const msg: LeaseRenewedMessage = {
    ...envelope('b', 1), kind: 'lease-renewed', to: 'a', leases: [
      { app: 'apps.app-1.1', component: 'db', phase: 'LAUNCHED', endpoint: '10.0.0.5:30100', revision: 'rev1' },
      { app: 'apps.app-1.1', component: 'api', stale: true },
      { app: 'apps.app-4.1', component: 'db', phase: 'GONE', reason: 'gone' },
    ],
  };
  const { stale, reports } = renewedReports(msg);
  t.deepEqual(stale, [{ app: 'apps.app-1.1', component: 'api' }]);
  t.deepEqual(reports.map((r) => [r.kind, r.sender, r.to, r.app, r.component, r.phase, r.endpoint, r.reason]), [
    ['host-status', 'b', 'a', 'apps.app-1.1', 'db', 'LAUNCHED', '10.0.0.5:30100', undefined],
    ['host-status', 'b', 'a', 'apps.app-4.1', 'db', 'GONE', undefined, 'gone'],
  ]);
  const codec = droneCodec();
  for (const r of reports) t.true(codec.decode(codec.encode(r)).ok, 'each is a valid host-status');
});

test('a host that answers no renewal for two rounds is taken for an older agent and gets full leases, until it answers', (t) => {
  const round = 20_000;
  const heard = { renewingSince: new Map([['b', 0], ['c', 0], ['d', 50_000]]), answeredAt: new Map([['b', 55_000]]) };
  // at 60 s: b answered 5 s ago; c never did in three rounds; d is renewed since 10 s only
  t.deepEqual(olderHosts(['b', 'c', 'd'], heard, 60_000, round), ['c']);
  t.deepEqual(olderHosts(['b', 'c', 'd'], heard, 100_000, round), ['b', 'c', 'd'], 'b and d silent for more than two rounds');
  t.deepEqual(olderHosts(['e'], heard, 100_000, round), [], 'a host not renewed yet');
});
