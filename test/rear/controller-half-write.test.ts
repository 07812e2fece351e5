// A purchase whose store write stopped halfway (its Contract made, its Transaction not yet
// deleted) leaves both objects on the seller. A restarted seller reads the pair back as the
// contract alone: the Transaction is settled and deleted, the capacity is held once (in its book,
// its flavour and DRONE's ledger), not twice until the Transaction expires.
import test from 'ava';
import type { ContractObject, TransactionObject } from '../../controller/rear/book-objects.ts';
import { SOLD_APP_PREFIX } from '../../controller/drone/host-ledger.ts';
import { waitFor } from '../support/wait.ts';
import { startMember } from '../offload/support.ts';
import { listed, rearFederation, rearOf, reserveFromProv } from './controllers.ts';

test('a Transaction left beside its Contract by a half-done write is settled when the seller restarts: the capacity is held once', async (t) => {
  const { cons, prov } = await rearFederation(t, ['--rear-reservation-seconds', '600']);
  const { buyer, flavour, transaction } = await reserveFromProv(cons);
  const [stored] = await listed<TransactionObject>(prov.kube, 'transactions');
  if (stored === undefined) throw new Error('no Transaction stored');
  const signed = await buyer.purchase(flavour, transaction.transactionId, 600_000);
  await waitFor('the Contract on prov-b, the Transaction gone', async () => {
    const contracts = await listed<ContractObject>(prov.kube, 'contracts');
    return contracts.length === 1 && (await listed<TransactionObject>(prov.kube, 'transactions')).length === 0 ? true : undefined;
  });
  const held = rearOf(prov).market?.flavours()[0];
  t.is(held?.characteristics.cpu, flavour.characteristics.cpu - 1000, 'the contract holds its 1000m once');

  // the write stopped before the Transaction's delete: both objects, as a crash between the two leaves them
  const { name, namespace, labels, annotations } = stored.metadata ?? {};
  await prov.kube.custom.createNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: namespace ?? '', plural: 'transactions', body: { apiVersion: stored.apiVersion, kind: 'Transaction', metadata: { name, namespace, labels, annotations }, spec: stored.spec } });
  t.is((await listed<TransactionObject>(prov.kube, 'transactions')).length, 1);

  await prov.controller.controller.stop();
  prov.controller = await startMember(t, prov);
  const restarted = rearOf(prov);
  t.deepEqual(restarted.market?.current().transactions, [], 'the purchased transaction is not held again');
  t.deepEqual(restarted.market?.current().contracts.map((c) => c.contractId), [signed.contract.contractId]);
  t.is(restarted.market?.flavours()[0]?.characteristics.cpu, held?.characteristics.cpu, 'on sale as before the restart');
  t.is(restarted.market?.flavours()[0]?.id, held?.id);
  const ledger = prov.controller.controller.offloader?.federation.agent.hosted().filter((e) => e.app.startsWith(SOLD_APP_PREFIX)).map((e) => e.app);
  t.deepEqual(ledger, [`${SOLD_APP_PREFIX}${signed.contract.contractId}`], 'DRONE\'s ledger counts the contract alone');
  await waitFor('the settled Transaction deleted', async () => ((await listed<TransactionObject>(prov.kube, 'transactions')).length === 0 ? true : undefined));
  t.like((await listed<ContractObject>(prov.kube, 'contracts'))[0], { spec: { contractID: signed.contract.contractId, transactionID: transaction.transactionId }, status: { phase: 'Active' } });
});
