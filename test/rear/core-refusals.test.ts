// What a seller's refusal means for the Solver (pure): a race goes back to discovery (with a
// deadline: Pending until the next attempt, not bounded by the attempts), what waiting cannot
// change ends it Failed at once, the reason naming the step and the message what to change.
import test from 'ava';
import { aboveCeiling, classifyRefusal, finalRefusal, nextAfterRefusal, REFUSAL_RETRY } from '../../controller/rear/core/refusals.ts';
import { nextSolver, type SolverState } from '../../controller/rear/core/solver-phases.ts';
import { solverStatus, stateOf } from '../../controller/rear/core/solver-status.ts';

const reserving: SolverState = { phase: 'Reserving', reason: 'WaitingForReservation', message: '', attempts: 3, flavourId: 'f1', provider: 'prov-1' };

test('refusals by kind: a race is tried again, what waiting cannot change is final, no answer is asked again', (t) => {
  t.is(classifyRefusal('not-found'), 'again');
  t.is(classifyRefusal('conflict'), 'again');
  t.is(classifyRefusal('internal'), 'again');
  t.is(classifyRefusal('forbidden'), 'final');
  t.is(classifyRefusal('invalid'), 'final');
  t.is(classifyRefusal('unavailable'), 'no-answer');
  t.is(classifyRefusal('timeout'), 'no-answer');
});

test('after a race refusal: at once the first time, then later each time, never past the deadline; without one the attempts bound it', (t) => {
  t.is(nextAfterRefusal(REFUSAL_RETRY, 1, 1_000, 100_000), 1_100);
  t.is(nextAfterRefusal(REFUSAL_RETRY, 3, 1_000, 100_000), 1_400);
  t.is(nextAfterRefusal(REFUSAL_RETRY, 30, 1_000, 100_000), 61_000, 'capped');
  t.is(nextAfterRefusal(REFUSAL_RETRY, 30, 90_000, 100_000), 100_000, 'the last attempt at the deadline');
  t.is(nextAfterRefusal(REFUSAL_RETRY, 2, 100_000, 100_000), 'deadline');
  t.is(nextAfterRefusal(REFUSAL_RETRY, 2, 1_000, undefined), undefined);
});

test('a race refusal with a deadline: Pending with the next attempt\'s time, past the attempts; read back the same', (t) => {
  const s = nextSolver(reserving, { type: 'refused', step: 'reserve', message: 'flavour f1 cannot hold 3 cpu', retryAt: Date.parse('2026-01-01T00:00:01Z') }, 3);
  t.like(s, { phase: 'Pending', reason: 'ReservationRefused', attempts: 3, retryAt: '2026-01-01T00:00:01.000Z' });
  t.is(s.message, 'flavour f1 cannot hold 3 cpu (3 attempts); next attempt at 2026-01-01T00:00:01.000Z');
  t.like(stateOf(solverStatus(s, { now: '2026-01-01T00:00:00Z' })), { phase: 'Pending', reason: 'ReservationRefused', retryAt: s.retryAt });
  // without a deadline the attempts end it, as before
  t.like(nextSolver(reserving, { type: 'refused', step: 'reserve', message: 'flavour f1 cannot hold 3 cpu' }, 3), { phase: 'Failed', reason: 'ReservationRefused', message: 'flavour f1 cannot hold 3 cpu (after 3 attempts)' });
  // the next reservation counts on from there
  t.like(nextSolver({ ...s, phase: 'Discovering' }, { type: 'reserve', flavourId: 'f2', provider: 'prov-1' }, 3), { phase: 'Reserving', attempts: 4 });
});

test('what waiting cannot change ends the Solver Failed at once, the reason naming the step, the message what to change', (t) => {
  const forbidden = finalRefusal('reserve', 'forbidden', 'prov-1', 'transaction tx-1 belongs to another buyer');
  t.is(forbidden.reason, 'ReservationForbidden');
  t.regex(forbidden.message, /^prov-1 refused this cluster: transaction tx-1 belongs to another buyer\. Trying again changes nothing: add prov-1 to spec\.deniedProviders/);
  const invalid = finalRefusal('purchase', 'invalid', 'prov-1', 'contract duration must be more than 0 and at most 86400000 ms, got 172800000');
  t.is(invalid.reason, 'PurchaseInvalid');
  t.regex(invalid.message, /at most 86400000 ms.*change the Solver's spec \(spec\.resources, spec\.durationSeconds\)/);
  const dear = aboveCeiling('prov-1', { amount: 2, currency: 'EUR', period: 'hourly' }, { amount: 1, currency: 'EUR', period: 'hourly' });
  t.deepEqual(dear, { reason: 'PriceAboveCeiling', message: 'prov-1 asks 2 EUR hourly for the reservation, above spec.maxPrice (1 EUR hourly). Trying again changes nothing: raise spec.maxPrice, or add prov-1 to spec.deniedProviders' });
  const failed = nextSolver({ ...reserving, attempts: 1, retryAt: '2026-01-01T00:00:00.000Z' }, { type: 'blocked', ...dear }, 3);
  t.like(failed, { phase: 'Failed', reason: 'PriceAboveCeiling', attempts: 1 });
  t.is(failed.retryAt, undefined);
  t.is(nextSolver(failed, { type: 'reserve', flavourId: 'f2', provider: 'prov-2' }, 3), failed, 'final');
  t.like(solverStatus(failed, { now: '2026-01-01T00:00:00Z' }).conditions[0], { status: 'False', reason: 'PriceAboveCeiling' });
});
