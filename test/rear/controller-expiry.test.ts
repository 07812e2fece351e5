// A reservation expiring under a Solver, through the real controllers on three control planes:
// prov-b's purchase path is blocked (its Market holds every PURCHASE and never answers), so each
// reservation the Solver makes lapses on the seller: its Transaction is deleted and the Flavor
// grows back whole; the buyer stops waiting past the transaction's expiry and the Solver says
// `ReservationExpired`, tries again, and after its attempts is Failed with that reason. cons-a's
// controller is restarted while its first purchase is held: it reads the reservation's expiry back
// from its Reservation and ends as it would have, once.
import test from 'ava';
import type { TransactionObject } from '../../controller/rear/book-objects.ts';
import type { PurchaseRequest } from '../../controller/rear/core/provider.ts';
import type { SignedContract } from '../../controller/rear/contract-signing.ts';
import { waitFor } from '../support/wait.ts';
import { APPS, startMember } from '../offload/support.ts';
import type { PeeringCandidateObject, ReservationObject } from '../../controller/rear/buyer-objects.ts';
import { createSolver, listed, rearFederation, rearOf, solverStatus } from './controllers.ts';

interface FlavorObject { metadata: { name: string }; spec: { characteristics: { cpu?: string } } }

test('an unpurchased reservation expires on the seller, the Flavor grows back, and the Solver says ReservationExpired, across a restart of the buyer', async (t) => {
  const { cons, prov } = await rearFederation(t, ['--rear-reservation-seconds', '3']);
  const market = rearOf(prov).market;
  if (market === undefined) throw new Error('prov-b sells nothing');
  const held: PurchaseRequest[] = [];
  market.purchase = (request): Promise<SignedContract> => { held.push(request); return new Promise(() => undefined); };
  // Flavors are cluster-scoped: `kubectl get flavors` on prov-b
  const flavors = async (): Promise<string> => ((await prov.kube.custom.listClusterCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', plural: 'flavors' })) as { items: FlavorObject[] }).items.map((f) => `${f.metadata.name}=${f.spec.characteristics.cpu ?? ''}`).sort().join(',');
  const whole = await waitFor('prov-b\'s Flavor published', async () => { const f = await flavors(); return f === '' ? undefined : f; });

  await createSolver(cons.kube, 'late', { resources: { cpu: '1', memory: '1Gi', pods: 1 }, durationSeconds: 60, remoteOnly: true, maxPrice: { amount: '5', currency: 'EUR', period: 'hourly' } });
  const purchasing = await waitFor('the Solver waiting for its purchase', async () => { const s = await solverStatus(cons.kube, 'late'); return s?.reason === 'WaitingForPurchase' ? s : undefined; }, { timeoutMs: 60_000, intervalMs: 50 });
  const first = purchasing.transactionID ?? '';
  t.like(purchasing, { phase: 'Purchasing', provider: 'prov-b' });
  const [reserved] = await listed<TransactionObject>(prov.kube, 'transactions');
  t.is(reserved?.spec.transactionID, first, 'the reservation is in prov-b\'s book');
  await waitFor('the Flavor shrunk by the reservation', async () => ((await flavors()) !== whole ? true : undefined));

  // the buyer's records: the candidate discovery found, and the reservation with the seller's expiry
  const candidates = await listed<PeeringCandidateObject>(cons.kube, 'peeringcandidates');
  t.true(candidates.some((c) => c.spec.flavor.flavorID === purchasing.flavorID && c.spec.flavor.owner.nodeID === 'prov-b' && Date.parse(c.spec.expiresAt) > 0), 'the candidate is a PeeringCandidate');
  const [reservation] = await listed<ReservationObject>(cons.kube, 'reservations', APPS);
  t.like(reservation, { metadata: { name: 'late-1' }, spec: { solver: 'late', flavorID: purchasing.flavorID, seller: 'prov-b', partition: { cpu: '1000m' } }, status: { phase: 'Reserved', transactionID: first } });
  t.is(reservation?.status?.expiresAt, reserved?.spec.expiresAt, 'the buyer records the seller\'s expiry');

  // the purchase reached the seller and is held; cons-a's controller stops and a new one starts
  await waitFor('the purchase held on prov-b', () => (held.some((r) => r.transactionId === first) ? true : undefined));
  await cons.controller.controller.stop();
  cons.controller = await startMember(t, cons);
  // the transaction lapses and its resources return
  await waitFor('the first Transaction deleted on expiry', async () => ((await listed<TransactionObject>(prov.kube, 'transactions')).every((x) => x.spec.transactionID !== first) ? true : undefined), { timeoutMs: 30_000 });
  const reasons: string[] = [];
  const failed = await waitFor('the Solver Failed after its attempts', async () => {
    const s = await solverStatus(cons.kube, 'late');
    if (s?.reason !== undefined && reasons.at(-1) !== s.reason) reasons.push(s.reason);
    return s?.phase === 'Failed' ? s : undefined;
  }, { timeoutMs: 120_000, intervalMs: 20 });
  t.like(failed, { phase: 'Failed', reason: 'ReservationExpired', attempts: 3 });
  t.regex(failed.message ?? '', /^transaction \S+ expired at \S+ before prov-b answered its purchase: reserve the flavour again \(after 3 attempts\)$/);
  t.like(failed.conditions?.[0], { type: 'Ready', status: 'False', reason: 'ReservationExpired' });
  // the restarted buyer stopped waiting at the first transaction's expiry read from its Reservation
  // (not when its resends ran out), as the first run would have
  const firstRecord = (await listed<ReservationObject>(cons.kube, 'reservations', APPS)).find((r) => r.metadata?.name === 'late-1');
  t.like(firstRecord?.status, { phase: 'Expired', transactionID: first });
  t.true(firstRecord?.status?.message?.startsWith(`transaction ${first} expired at ${reserved?.spec.expiresAt ?? '?'} before prov-b answered its purchase`), firstRecord?.status?.message);
  t.true(reasons.filter((r) => r === 'WaitingForPurchase').length >= 2, `it reserved again: ${reasons.join(' → ')}`);
  t.is(new Set(held.map((r) => r.transactionId)).size, 3, 'three reservations, each purchase held');
  // one Reservation per attempt, each Expired with its transaction: the restart reserved nothing more
  const reservations = await listed<ReservationObject>(cons.kube, 'reservations', APPS);
  t.deepEqual(reservations.map((r) => [r.metadata?.name, r.status?.phase]).sort(), [['late-1', 'Expired'], ['late-2', 'Expired'], ['late-3', 'Expired']]);
  t.deepEqual(new Set(reservations.map((r) => r.status?.transactionID)), new Set(held.map((r) => r.transactionId)));

  // the last reservation lapses too: nothing held on prov-b, the Flavor whole again, no contract
  await waitFor('every Transaction gone and the Flavor whole again', async () => ((await listed<TransactionObject>(prov.kube, 'transactions')).length === 0 && (await flavors()) === whole ? true : undefined), { timeoutMs: 30_000 });
  t.deepEqual(market.current().transactions, []);
  t.deepEqual(await listed(prov.kube, 'contracts'), []);
});
