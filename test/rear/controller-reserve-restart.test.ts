// A buyer restarted between sending a RESERVE and its answer, through the real controllers on
// three control planes: prov-b makes the transaction but no answer leaves it until cons-a's
// controller has been restarted. The restarted buyer reads the request
// id from its Reservation and sends it again; the seller answers with the transaction it already
// holds, so it never holds a second one, and the Solver buys exactly that transaction.
import test from 'ava';
import type { TransactionObject } from '../../controller/rear/book-objects.ts';
import type { ReservationObject } from '../../controller/rear/buyer-objects.ts';
import type { ReserveRequest } from '../../controller/rear/core/provider.ts';
import type { Transaction } from '../../controller/rear/core/model.ts';
import { waitFor } from '../support/wait.ts';
import { APPS, startMember } from '../offload/support.ts';
import { createSolver, listed, rearFederation, rearOf, solverStatus } from './controllers.ts';

test('a buyer restarted before its RESERVE is answered sends the same request again: one transaction on the seller, bought', async (t) => {
  const { cons, prov } = await rearFederation(t);
  const market = rearOf(prov).market;
  if (market === undefined) throw new Error('prov-b sells nothing');
  const reserve = market.reserve.bind(market);
  const asked: Array<ReserveRequest & { restarted: boolean }> = [];
  const made: Transaction[] = [];
  let restarted = false;
  // RESERVEs are sold, but no answer leaves prov-b until the buyer has restarted
  market.reserve = async (request) => {
    const after = restarted;
    asked.push({ ...request, restarted: after });
    const transaction = await reserve(request);
    made.push(transaction);
    return after ? transaction : new Promise<Transaction>(() => undefined);
  };

  await createSolver(cons.kube, 'once', { resources: { cpu: '1', memory: '1Gi', pods: 1 }, durationSeconds: 600, remoteOnly: true });
  await waitFor('the first RESERVE sold on prov-b', () => (made.length === 1 ? true : undefined), { timeoutMs: 60_000, intervalMs: 10 });
  await cons.controller.controller.stop();
  restarted = true;
  const [held] = await listed<ReservationObject>(cons.kube, 'reservations', APPS);
  cons.controller = await startMember(t, cons);

  const solved = await waitFor('the Solver to hold a contract', async () => { const s = await solverStatus(cons.kube, 'once'); return s?.phase === 'Peering' || s?.phase === 'Solved' ? s : undefined; }, { timeoutMs: 120_000 });
  t.true(asked.some((r) => r.restarted), 'the restarted buyer reserved again');
  t.deepEqual(new Set(asked.map((r) => r.requestId)), new Set([asked[0]?.requestId]), 'with the same request id');
  t.deepEqual(new Set(made.map((x) => x.transactionId)), new Set([made[0]?.transactionId]), 'the seller answered with the transaction it held');
  t.is(solved.transactionID, made[0]?.transactionId, 'the Solver bought that transaction');
  // the Reservation held the request id while the RESERVE was unanswered
  t.like(held, { metadata: { name: 'once-1' }, spec: { requestID: asked[0]?.requestId }, status: { phase: 'Reserving' } });
  t.regex(held?.spec.requestID ?? '', /^cons-a\./);
  // nothing else is held on the seller: its one reservation became the contract
  t.deepEqual(market.current().transactions, []);
  t.deepEqual(market.current().contracts.map((c) => c.transactionId), [made[0]?.transactionId]);
  t.deepEqual(await listed<TransactionObject>(prov.kube, 'transactions'), []);
  const reservations = await listed<ReservationObject>(cons.kube, 'reservations', APPS);
  t.deepEqual(reservations.map((r) => [r.metadata?.name, r.status?.phase, r.status?.transactionID]), [['once-1', 'Purchased', made[0]?.transactionId]]);
});
