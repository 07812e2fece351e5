// REAR wired into the real controller, on three real control planes: a Solver on cons-a is
// bought from prov-b in another domain over DRONE's signed bus; REAR and DRONE share prov-b's
// slice both ways; a withdrawal mid-contract reaches the buyer's Solver and Contract; the
// seller's book survives a restart between reserve and purchase, and an unpurchased reservation
// still expires and gives its resources back.
import test from 'ava';
import type { ContractObject, TransactionObject } from '../../controller/rear/book-objects.ts';
import { SOLD_APP_PREFIX } from '../../controller/drone/host-ledger.ts';
import { waitFor } from '../support/wait.ts';
import { APPS, createApp, readApp, startMember, twoComponentApp } from '../offload/support.ts';
import { createSolver, listed, rearFederation, rearOf, reserveFromProv, solverStatus } from './controllers.ts';

test.serial('capacity REAR sells is not offered by DRONE\'s auction, and what DRONE hosts is not sold by REAR', async (t) => {
  const { cons, prov } = await rearFederation(t);
  const provRear = rearOf(prov);
  const provAgent = prov.controller.controller.offloader?.federation.agent;
  const whole = provRear.market?.flavours()[0];
  t.is(whole?.characteristics.cpu, 4000, 'half of 8 cpu is on sale (DRONE\'s scale 50 %)');

  await createSolver(cons.kube, 'big', { resources: { cpu: '3', memory: '4Gi', pods: 2 }, durationSeconds: 600, remoteOnly: true, maxPrice: { amount: '5', currency: 'EUR', period: 'hourly' } });
  const status = await waitFor('the Solver to hold a contract', async () => { const s = await solverStatus(cons.kube, 'big'); return s?.phase === 'Peering' || s?.phase === 'Solved' ? s : undefined; }, { timeoutMs: 120_000 });
  t.like(status, { provider: 'prov-b', providerDomain: 'domain-b' });
  const contractId = status.contractID ?? '';

  // the seller keeps the contract as a resource and holds it in DRONE's ledger
  const [contract] = await waitFor('the Contract on prov-b', async () => { const c = (await listed<ContractObject>(prov.kube, 'contracts')).filter((x) => x.spec.contractID === contractId); return c.length === 1 ? c : undefined; });
  t.like(contract?.spec, { buyer: 'cons-a', resources: { cpu: '3000m', memory: '4096Mi' }, seller: { nodeID: 'prov-b', domain: 'domain-b' } });
  const countersigned = await waitFor('the seller to hold the buyer\'s countersignature', async () => { const c = (await listed<ContractObject>(prov.kube, 'contracts')).find((x) => x.spec.contractID === contractId); return c?.status?.verified === true ? c : undefined; });
  t.like(countersigned.status, { phase: 'Active', verified: true });
  t.truthy(countersigned.spec.signatures.buyer);
  // the buyer's own records: its copy of the Contract, and the peering's virtual node and Allocation
  const mine = (await listed<ContractObject>(cons.kube, 'contracts', APPS)).find((c) => c.spec.contractID === contractId);
  t.like(mine?.status, { phase: 'Active', verified: true });
  const solved = await waitFor('the Solver to be Solved (its virtual node Ready)', async () => { const s = await solverStatus(cons.kube, 'big'); return s?.phase === 'Solved' ? s : undefined; });
  t.like(solved, { reason: 'VirtualNodeReady', contractID: contractId, virtualNode: `rear-${contractId}` });
  const [allocation] = await listed<{ metadata: { labels?: Record<string, string> }; spec: { contract: string; type: string; nodeName?: string }; status?: { phase?: string } }>(cons.kube, 'allocations', APPS);
  t.like(allocation, { metadata: { labels: { 'rear.edgeshifu.io/solver': 'big' } }, spec: { contract: contractId, type: 'VirtualNode', nodeName: `rear-${contractId}` }, status: { phase: 'Active' } });
  const node = await cons.kube.core.readNode({ name: `rear-${contractId}` });
  t.like(node.status?.allocatable, { cpu: '3', memory: '4Gi', pods: '2' });
  t.deepEqual(provAgent?.hosted().filter((e) => e.app.startsWith(SOLD_APP_PREFIX)).map((e) => [e.origin, e.app, e.resources.cpu]), [['cons-a', `${SOLD_APP_PREFIX}${contractId}`, 3000]]);
  t.is(provRear.market?.flavours()[0]?.characteristics.cpu, 1000, 'the flavour shrank to what is left');

  // 2 × 1 cpu would fit the 4 cpu slice, not the 1 cpu REAR left: the auction finds no host
  const app = twoComponentApp('shop', { cpu: '1', memory: '512Mi' }) as { spec: Record<string, unknown> };
  app.spec.offload = true;
  await createApp(cons.kube, app);
  const failed = await waitFor('shop to find no host', async () => { const d = await readApp(cons.kube, 'shop'); return d?.status?.phase === 'FAILED' ? d : undefined; }, { timeoutMs: 120_000 });
  t.falsy(failed.status?.components?.some((c) => c.cluster === 'prov-b'));

  // the contract is withdrawn: DRONE's next try places both components on prov-b
  await provRear.market?.withdraw(contractId);
  const running = await waitFor('shop to run on prov-b', async () => { const d = await readApp(cons.kube, 'shop'); return d?.status?.phase === 'RUNNING' ? d : undefined; }, { timeoutMs: 180_000 });
  t.deepEqual(running.status?.components?.map((c) => c.cluster), ['prov-b', 'prov-b']);
  t.is((await listed<ContractObject>(prov.kube, 'contracts')).find((c) => c.spec.contractID === contractId)?.status?.phase, 'Withdrawn');
  // the buyer is told: its Solver, its Contract copy and its Allocation say the contract is over
  const ended = await waitFor('the consumer\'s Solver to see the withdrawal', async () => { const s = await solverStatus(cons.kube, 'big'); return s?.phase === 'Failed' ? s : undefined; });
  t.like(ended, { reason: 'ContractEnded' });
  t.regex(ended.message ?? '', /withdrawn by prov-b/);
  t.is((await listed<ContractObject>(cons.kube, 'contracts', APPS)).find((c) => c.spec.contractID === contractId)?.status?.phase, 'Withdrawn');
  await waitFor('the Allocation Released and the virtual node gone', async () => {
    const released = (await listed<{ status?: { phase?: string } }>(cons.kube, 'allocations', APPS))[0]?.status?.phase === 'Released';
    const gone = await cons.kube.core.readNode({ name: `rear-${contractId}` }).then(() => false, () => true);
    return released && gone ? true : undefined;
  });

  // and the other way: what DRONE hosts leaves REAR's flavour
  const cpuOnSale = await waitFor('REAR\'s flavour to leave out DRONE\'s components', () => { const cpu = provRear.market?.flavours()[0]?.characteristics.cpu; return cpu !== undefined && cpu <= 2000 ? cpu : undefined; }, { timeoutMs: 60_000 });
  t.true(cpuOnSale <= 2000, `${cpuOnSale}m on sale with 2 cpu hosted for DRONE`);
});

test.serial('a seller restarted between reserve and purchase still sells the purchase; an unpurchased reservation expires', async (t) => {
  const { cons, prov } = await rearFederation(t, ['--rear-reservation-seconds', '20']);
  const { buyer, flavour, transaction } = await reserveFromProv(cons);
  const [stored] = await listed<TransactionObject>(prov.kube, 'transactions');
  t.like(stored?.spec, { transactionID: transaction.transactionId, buyer: 'cons-a', resources: { cpu: '1000m' } });

  // the seller's controller stops and a new one starts: it reads its book back
  await prov.controller.controller.stop();
  prov.controller = await startMember(t, prov);
  const restarted = rearOf(prov);
  t.deepEqual(restarted.market?.current().transactions.map((x) => x.transactionId), [transaction.transactionId]);
  t.true(prov.controller.controller.offloader?.federation.agent.hosted().some((e) => e.app === `${SOLD_APP_PREFIX}${transaction.transactionId}`), 'the restarted seller holds the reservation in DRONE\'s ledger');
  const signed = await buyer.purchase(flavour, transaction.transactionId, 600_000);
  t.is(signed.contract.transactionId, transaction.transactionId);
  t.truthy(signed.signatures.buyer);
  // a countersignature that is not the buyer's is refused; the genuine one is kept
  await t.throwsAsync(buyer.countersign({ contract: signed.contract, signatures: { seller: signed.signatures.seller, buyer: signed.signatures.seller } }), { message: /does not verify/ });
  await buyer.countersign(signed);
  t.true((await listed<ContractObject>(prov.kube, 'contracts')).find((c) => c.spec.contractID === signed.contract.contractId)?.status?.verified);
  await waitFor('the Contract on prov-b, the Transaction gone', async () => {
    const contracts = await listed<ContractObject>(prov.kube, 'contracts');
    const transactions = await listed<TransactionObject>(prov.kube, 'transactions');
    return contracts.some((c) => c.spec.contractID === signed.contract.contractId) && transactions.length === 0 ? true : undefined;
  });

  // a second reservation is never purchased: it expires, and its resources return
  const before = restarted.market?.flavours()[0];
  const second = await buyer.reserve(before ?? flavour, { partition: { cpu: 500, memory: 512, pods: 1, storage: 0, gpu: 0 } });
  t.is(restarted.market?.flavours()[0]?.characteristics.cpu, (before?.characteristics.cpu ?? 0) - 500);
  await waitFor('the reservation to expire', async () => ((await listed<TransactionObject>(prov.kube, 'transactions')).length === 0 ? true : undefined), { timeoutMs: 60_000 });
  t.is(restarted.market?.flavours()[0]?.id, before?.id, 'the flavour is whole again');
  t.false(prov.controller.controller.offloader?.federation.agent.hosted().some((e) => e.app.endsWith(second.transactionId)) ?? true);
});
