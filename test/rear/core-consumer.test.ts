import test from 'ava';
import { firstSight, forget, forgetGone, mergeAnswers, prune, remember, supernodeAnswer } from '../../controller/rear/core/discovery.ts';
import { goneTargets } from '../../controller/rear/flows/routing.ts';
import { catalogue, EMPTY_BOOK } from '../../controller/rear/core/provider.ts';
import { matches, validateSelector } from '../../controller/rear/core/selector.ts';
import { contractEnd, INITIAL, nextSolver, type SolverState } from '../../controller/rear/core/solver-phases.ts';
import { solverStatus, stateOf } from '../../controller/rear/core/solver-status.ts';
import { nextDiscovery, retryDelay, solverDeadline, waitForRetry } from '../../controller/rear/core/discovery-retry.ts';
import { decide, type Candidate, type Intent } from '../../controller/rear/core/solver.ts';
import type { Flavour } from '../../controller/rear/core/model.ts';
import { aggregatable, partitionable, r, slice } from './fixtures.ts';

const flavour = (config = partitionable, cluster = 'prov-1'): Flavour => {
  const f = catalogue(slice, EMPTY_BOOK, { ...config, owner: { ...config.owner, cluster } })[0];
  if (f === undefined) throw new Error('no flavour');
  return f;
};

test('the selector: type, architecture, lower and upper bounds per resource', (t) => {
  const f = flavour();
  t.true(matches(f, {}));
  t.true(matches(f, { type: 'k8slice', architecture: 'amd64', bounds: { cpu: { min: 4000 }, memory: { min: 1024, max: 2048 } } }));
  t.false(matches(f, { architecture: 'arm64' }));
  t.false(matches(f, { type: 'VM' }));
  t.false(matches(f, { bounds: { cpu: { min: 4001 } } }));
  // partitionable: an upper bound matches while the minimum partition is under it
  t.true(matches(f, { bounds: { cpu: { max: 500 } } }));
  t.false(matches(f, { bounds: { cpu: { max: 499 } } }));
  // aggregatable: bounds on one unit (max) and on all units (min)
  const a = flavour(aggregatable);
  t.true(matches(a, { bounds: { cpu: { min: 3000, max: 1000 } } }));
  t.false(matches(a, { bounds: { cpu: { max: 999 } } }));
});

test('bad selectors are refused naming the field', (t) => {
  t.regex(t.throws(() => { validateSelector({ bounds: { cpu: { min: 3, max: 2 } } }); }).message, /cpu min 3 is above max 2/);
  t.regex(t.throws(() => { validateSelector({ bounds: { disk: { min: 1 } } as never }); }).message, /unknown resource disk; use one of cpu, memory, pods, storage, gpu/);
});

const intent: Intent = { resources: r(1000, 1024, 2), architecture: 'amd64', durationMs: 3_600_000 };
const cand = (f: Flavour, expiresAt = 1_000): Candidate => ({ flavour: f, via: 'super-a', expiresAt });

test('the solver: local capacity first, then known candidates, then discovery', (t) => {
  t.is(decide(intent, r(2000, 2048, 5), [cand(flavour())], 0).step, 'local');
  const remote = decide({ ...intent, remoteOnly: true }, r(2000, 2048, 5), [cand(flavour())], 0);
  t.is(remote.step, 'reserve');
  const d = decide(intent, r(0, 0), [cand(flavour())], 0);
  if (d.step !== 'reserve') return t.fail(d.reason);
  t.deepEqual(d.take, { partition: r(1000, 1024, 2, 0) });
  const none = decide(intent, r(0, 0), [], 0);
  t.deepEqual(none, { step: 'discover', reason: 'no peering candidate known', selector: { architecture: 'amd64', bounds: { cpu: { min: 1000 }, memory: { min: 1024 }, pods: { min: 2 } } } });
  const stale = decide(intent, r(0, 0), [cand(flavour(), 0)], 0);
  t.is(stale.step, 'discover');
  t.regex(stale.reason, /none of 1 peering candidates fits \(expired\)/);
});

test('the solver: price ceiling, allowed and denied providers, cheapest first', (t) => {
  const cheap = flavour(partitionable, 'prov-cheap');
  const dear = flavour({ ...partitionable, rate: { ...partitionable.rate, perCpu: 1 } }, 'prov-dear');
  const all = [cand(dear), cand(cheap)];
  const pick = (i: Intent): string => { const d = decide(i, r(0, 0), all, 0); return d.step === 'reserve' ? d.candidate.flavour.owner.cluster : `${d.step}: ${d.reason}`; };
  t.is(pick(intent), 'prov-cheap');
  t.is(pick({ ...intent, deniedProviders: ['prov-cheap'] }), 'prov-dear');
  t.is(pick({ ...intent, allowedProviders: ['prov-dear'] }), 'prov-dear');
  // the part taken (1 of 4 cpu) of the dear one is quoted at a quarter of 4.08 an hour: above 12 a day
  t.is(pick({ ...intent, deniedProviders: ['prov-cheap'], maxPrice: { amount: 12, currency: 'EUR', period: 'daily' } }), 'discover: none of 2 peering candidates fits (above the price ceiling; provider prov-cheap is denied)');
  t.regex(pick({ ...intent, maxPrice: { amount: 1, currency: 'USD', period: 'hourly' } }), /priced in EUR, ceiling in USD/);
});

test('the solver takes whole units of an aggregatable flavour', (t) => {
  const d = decide({ ...intent, resources: r(1500, 1024, 2) }, r(0, 0), [cand(flavour(aggregatable))], 0);
  if (d.step !== 'reserve') return t.fail(d.reason);
  t.deepEqual(d.take, { units: 2 });
});

test('Solver phases: each step named in the reason; a refused reservation goes back to discovery until attempts run out', (t) => {
  let s = nextSolver(INITIAL, { type: 'discover', message: 'no peering candidate known' }, 2);
  t.like(s, { phase: 'Discovering', reason: 'WaitingForDiscovery' });
  s = nextSolver(s, { type: 'discovered', count: 2 }, 2);
  s = nextSolver(s, { type: 'reserve', flavourId: 'f1', provider: 'prov-1' }, 2);
  t.like(s, { phase: 'Reserving', reason: 'WaitingForReservation', attempts: 1 });
  s = nextSolver(s, { type: 'refused', step: 'reserve', message: 'flavour f1 is not on sale any more' }, 2);
  t.like(s, { phase: 'Discovering', reason: 'ReservationRefused', attempts: 1 });
  s = nextSolver(s, { type: 'reserve', flavourId: 'f2', provider: 'prov-2' }, 2);
  s = nextSolver(s, { type: 'reserved', transactionId: 'tx' }, 2);
  t.like(s, { phase: 'Purchasing', reason: 'WaitingForPurchase' });
  const failed = nextSolver(s, { type: 'refused', step: 'purchase', message: 'expired' }, 2);
  t.like(failed, { phase: 'Failed', reason: 'PurchaseRefused', message: 'expired (after 2 attempts)' });
  t.like(nextSolver(s, { type: 'refused', step: 'expiry', message: 'transaction tx expired' }, 2), { phase: 'Failed', reason: 'ReservationExpired', message: 'transaction tx expired (after 2 attempts)' });
  t.like(nextSolver({ ...s, attempts: 1 }, { type: 'refused', step: 'expiry', message: 'transaction tx expired' }, 2), { phase: 'Discovering', reason: 'ReservationExpired', attempts: 1 });
  s = nextSolver(s, { type: 'purchased', contractId: 'c1' }, 2);
  t.like(s, { phase: 'Peering', reason: 'WaitingForVirtualNode' });
  s = nextSolver(s, { type: 'peered' }, 2);
  t.like(s, { phase: 'Solved', reason: 'VirtualNodeReady' });
  t.is(nextSolver(s, { type: 'reserve', flavourId: 'x', provider: 'y' }, 2), s);
  t.like(nextSolver(s, { type: 'contract-ended', message: 'withdrawn by prov-2' }, 2), { phase: 'Failed', reason: 'ContractEnded' });
  t.like(nextSolver(INITIAL, { type: 'discovered', count: 0 }, 2), { phase: 'Failed', reason: 'NoFlavourFound' });
});

test('a contract that runs its time ends the Solver Ended/ContractExpired; one withdrawn or deleted early is Failed/ContractEnded; both are final', (t) => {
  const solved: SolverState = { phase: 'Solved', reason: 'VirtualNodeReady', message: '', attempts: 1, contractId: 'c1', virtualNode: 'rear-c1' };
  const at = Date.parse('2026-11-27T08:00:00Z');
  const copy = { contractId: 'c1', seller: 'prov-2', expiresAt: '2026-11-27T08:00:00.000Z' };
  const expired = contractEnd(copy, at);
  t.deepEqual(expired, { type: 'contract-expired', message: 'contract c1 reached its end at 2026-11-27T08:00:00.000Z; its virtual node is removed' });
  const ended = nextSolver(solved, expired, 2);
  t.like(ended, { phase: 'Ended', reason: 'ContractExpired', contractId: 'c1', virtualNode: 'rear-c1' });
  t.like(solverStatus(ended, { now: '2026-11-27T08:00:01Z' }).conditions[0], { type: 'Ready', status: 'False', reason: 'ContractExpired' });
  // the seller's own record said Ended: the same, whatever the clocks say
  t.is(contractEnd({ ...copy, phase: 'Ended' }, at - 5_000).type, 'contract-expired');
  // withdrawn (even past its time) or deleted before it: a failure, naming the seller
  t.deepEqual(contractEnd({ ...copy, phase: 'Withdrawn' }, at + 5_000), { type: 'contract-ended', message: 'contract c1 was withdrawn by prov-2 before 2026-11-27T08:00:00.000Z' });
  t.like(nextSolver(solved, contractEnd({ ...copy, deleting: true }, at - 5_000), 2), { phase: 'Failed', reason: 'ContractEnded', message: 'contract c1 was deleted before 2026-11-27T08:00:00.000Z' });
  // a Solver still peering when its contract runs out ends too; without a contract nothing moves
  t.like(nextSolver({ ...solved, phase: 'Peering', reason: 'WaitingForVirtualNode' }, expired, 2), { phase: 'Ended' });
  t.is(nextSolver({ ...INITIAL, phase: 'Purchasing' }, expired, 2).phase, 'Purchasing');
  // final: a late withdrawal notice leaves Ended alone, a late expiry leaves Failed alone
  t.is(nextSolver(ended, { type: 'contract-ended', message: 'x' }, 2), ended);
  const failed = nextSolver(solved, { type: 'contract-ended', message: 'withdrawn' }, 2);
  t.is(nextSolver(failed, expired, 2), failed);
  t.is(nextSolver(ended, { type: 'discover', message: 'x' }, 2), ended);
});

test('supernode: own flavours first, then its cache, then the supernodes it knows (not those on the path)', (t) => {
  const own = flavour(partitionable, 'prov-own');
  const far = flavour(partitionable, 'prov-far');
  const sel = { bounds: { cpu: { min: 1000 } } };
  t.deepEqual(supernodeAnswer({ own: [own], cache: new Map(), known: ['s2'] }, { selector: sel, path: [] }, 0), { source: 'own', flavours: [own] });
  const cache = remember(new Map(), { flavours: [far], via: 's2' }, 0, 10_000);
  t.deepEqual(supernodeAnswer({ own: [], cache, known: ['s2'] }, { selector: sel, path: [] }, 5_000), { source: 'cache', flavours: [far] });
  t.deepEqual(supernodeAnswer({ own: [], cache, known: ['s3', 's2', 's1'] }, { selector: sel, path: ['s1'] }, 10_000), { source: 'ask', ask: ['s2', 's3'] });
  t.is(prune(cache, 10_000).size, 0);
  t.is(forget(cache, far.id).size, 0);
  t.deepEqual(mergeAnswers([[far, own], [own]]).map((f) => f.id), [far.id, own.id].sort());
});

test('a flavour gone: a supernode forgets only the named seller\'s ids, passes the notice once, never back along its path', (t) => {
  const near = flavour(partitionable, 'prov-near');
  const far = flavour(partitionable, 'prov-far');
  const cache = remember(new Map(), { flavours: [near, far], via: 's2' }, 0, 10_000);
  t.deepEqual([...forgetGone(cache, 'prov-far', [far.id]).keys()], [near.id]);
  t.is(forgetGone(cache, 'prov-near', [far.id]), cache, 'another seller cannot make it forget prov-far\'s flavour');
  t.is(forgetGone(cache, 'prov-far', ['unknown']), cache);
  const sn = { self: 'sn-a', domain: 'a', supernode: 'sn-a', members: ['cons-a'], supernodes: new Map([['b', 'prov-b'], ['c', 'sn-c']]) };
  t.deepEqual(goneTargets(sn, ['prov-b']), ['sn-c'], 'not back along the path');
  t.deepEqual(goneTargets(sn, ['sn-a']), ['prov-b', 'sn-c'], 'the seller a supernode: every supernode it knows');
  t.deepEqual(goneTargets(sn, ['prov-b', 'sn-c']), []);
  t.deepEqual(goneTargets({ self: 'cons-a', domain: 'a', supernode: 'sn-a' }, ['cons-a']), ['sn-a'], 'the seller a member: its supernode');
  const once = firstSight(new Map(), 'prov-b/n1', 0, 1_000);
  t.true(once.first);
  t.false(firstSight(once.seen, 'prov-b/n1', 500, 1_000).first, 'a notice that comes by a second way is not passed on again');
  t.is(firstSight(once.seen, 'prov-b/n2', 1_000, 1_000).seen.size, 1, 'notices older than the cache\'s entries are dropped');
});

test('an empty discovery is tried again after a delay that doubles up to a cap, never past the Solver\'s deadline', (t) => {
  const policy = { initialMs: 5_000, maxMs: 60_000 };
  t.deepEqual([1, 2, 3, 4, 5, 6, 50].map((n) => retryDelay(policy, n)), [5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  const now = Date.parse('2026-11-27T04:00:00Z');
  t.deepEqual(nextDiscovery(policy, 1, now), { kind: 'retry', at: now + 5_000, failures: 1 });
  t.deepEqual(nextDiscovery(policy, 4, now, now + 7_000), { kind: 'retry', at: now + 7_000, failures: 4 }, 'the last attempt is made at the deadline');
  t.deepEqual(nextDiscovery(policy, 5, now + 7_000, now + 7_000), { kind: 'deadline', failures: 5 });
  t.is(solverDeadline('2026-11-27T04:00:00Z', 90), now + 90_000);
  t.is(solverDeadline('2026-11-27T04:00:00Z', undefined), undefined);
  t.is(waitForRetry(new Date(now + 2_000).toISOString(), now), 2_000);
  t.is(waitForRetry(new Date(now - 1).toISOString(), now), 0);
  t.is(waitForRetry(undefined, now), 0);
});

test('a Solver whose discovery finds nothing stays Pending (NoFlavourFound, with the next attempt\'s time), tries again, and fails only at its deadline', (t) => {
  const at = Date.parse('2026-11-27T04:00:05Z');
  let s = nextSolver(INITIAL, { type: 'discover', message: 'no peering candidate known' }, 3);
  s = nextSolver(s, { type: 'not-found', retryAt: at, failures: 1 }, 3);
  t.like(s, { phase: 'Pending', reason: 'NoFlavourFound', discoveries: 1, retryAt: '2026-11-27T04:00:05.000Z' });
  t.regex(s.message, /no flavour matching the intent \(1 attempt\); next attempt at 2026-11-27T04:00:05.000Z/);
  const status = solverStatus(s, { now: '2026-11-27T04:00:00Z' });
  t.like(status, { phase: 'Pending', reason: 'NoFlavourFound', discoveryAttempts: 1, nextAttemptTime: '2026-11-27T04:00:05.000Z' });
  t.like(status.conditions[0], { type: 'Ready', status: 'False', reason: 'NoFlavourFound' });
  t.deepEqual(stateOf(status), s, 'a restarted controller resumes the wait');
  s = nextSolver(s, { type: 'discover', message: 'trying again' }, 3);
  t.like(s, { phase: 'Discovering', reason: 'WaitingForDiscovery', discoveries: 1 });
  t.is(s.retryAt, undefined);
  const failed = nextSolver(s, { type: 'deadline', failures: 2 }, 3);
  t.like(failed, { phase: 'Failed', reason: 'DeadlineExceeded', discoveries: 2 });
  t.regex(failed.message, /2 attempts\) before the Solver's deadline/);
  // found the second time: candidates, and the count of empty ones starts over
  t.like(nextSolver(s, { type: 'discovered', count: 1 }, 3), { reason: 'CandidatesFound', discoveries: 0 });
  const solved = nextSolver({ ...s, phase: 'Peering', reason: 'WaitingForVirtualNode', contractId: 'c1' }, { type: 'peered', virtualNode: 'rear-c1' }, 3);
  t.like(solved, { phase: 'Solved', reason: 'VirtualNodeReady', virtualNode: 'rear-c1', message: 'contract c1 peered: virtual node rear-c1 is Ready' });
  t.like(solverStatus(solved, { now: '2026-11-27T04:01:00Z' }), { virtualNode: 'rear-c1', conditions: [{ status: 'True', reason: 'VirtualNodeReady' }] });
});
