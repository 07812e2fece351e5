// Intents bought until every seller is sold out, through the real controllers on three control
// planes (cons-a behind supernode sn-a, prov-b the supernode of domain-b): Solvers come two at a
// time, so their reservations race for one flavour. The invariant is sampled all along: no
// seller's contracts and reservations ever exceed its slice. At the end every Solved Solver holds
// exactly one live contract on the seller it names, in the seller's book and in its Contract
// resources, and no seller holds a contract no Solver has. A supernode sells its own slice too,
// and answers a discovery with it before it asks further (core/discovery.ts).
import test from 'ava';
import type { Solver } from '../../controller/rear/solver-reconciler.ts';
import { waitFor } from '../support/wait.ts';
import { APPS } from '../offload/support.ts';
import { createSolver, listed, rearFederation, rearOf, solverStatus } from './controllers.ts';
import { overheld, sellerAccount, solvedBySeller, storedContracts, watchBooks } from './accounting.ts';

const INTENT = { resources: { cpu: '500m', memory: '512Mi', pods: 1 }, durationSeconds: 600, remoteOnly: true };

test('Solvers racing two at a time sell every slice out and no further; each Solved Solver holds one contract on its seller', async (t) => {
  const { cons, sn, prov } = await rearFederation(t);
  // sn-a (1 cpu, DRONE's scale 50 %) sells 500m, prov-b (8 cpu) 4,000m: nine intents of 500m fit
  t.is(sellerAccount(sn).sellable, 500);
  t.is(sellerAccount(prov).sellable, 4000);
  const watch = watchBooks([sn, prov, cons]);
  const settled = async (name: string): Promise<NonNullable<Solver['status']> | undefined> => {
    const s = await solverStatus(cons.kube, name);
    if (s?.phase === 'Solved' || s?.phase === 'Failed') return s;
    // an empty discovery is final only once nothing is on sale: one that missed a seller (a
    // supernode's answer late under load) is tried again, and must then find it
    const nothingOnSale = [sn, prov].every((m) => (rearOf(m).market?.flavours() ?? []).length === 0);
    return s?.phase === 'Pending' && s.reason === 'NoFlavourFound' && nothingOnSale ? s : undefined;
  };
  let soldOut = false;
  for (let batch = 0; batch < 12 && !soldOut; batch += 1) {
    const names = [`want-${String(batch)}a`, `want-${String(batch)}b`];
    await Promise.all(names.map((name) => createSolver(cons.kube, name, INTENT)));
    const states = await Promise.all(names.map((name) => waitFor(`${name} to settle`, () => settled(name), { timeoutMs: 120_000 })));
    for (const m of [sn, prov]) t.is(overheld(sellerAccount(m)), undefined);
    soldOut = states.some((s) => s.phase === 'Pending');
  }
  t.true(soldOut, 'an intent found nothing once the slices were sold');
  const seen = await watch.stop();
  t.is(seen.breach, undefined, `sampled ${String(seen.samples)} times`);

  // nothing on sale is left on either seller, and the contracts fill each slice to less than one intent
  for (const m of [sn, prov]) {
    t.deepEqual(rearOf(m).market?.flavours(), [], `${m.id} is sold out`);
    const a = sellerAccount(m);
    t.true(a.sellable - a.contracts < 500, `${m.id}: ${String(a.contracts)}m sold of ${String(a.sellable)}m`);
    t.is(a.reservations, 0, `${m.id}: no reservation is left held`);
  }
  t.is(sellerAccount(sn).contractIds.length, 1);
  t.is(sellerAccount(prov).contractIds.length, 8);
  // every Solved Solver's contract is live on the seller it names, in memory and in resources, and each seller holds no other
  const solved = await solvedBySeller(cons);
  for (const m of [sn, prov]) {
    const ids = sellerAccount(m).contractIds;
    t.deepEqual(solved.get(m.id) ?? [], ids, `${m.id}: the Solvers that name it hold exactly its contracts`);
    t.deepEqual(await storedContracts(m), ids, `${m.id}: its Contract resources are its book`);
  }
  t.deepEqual([...solved.keys()].sort(), ['prov-b', 'sn-a']);
  // a Solver that lost a race holds nothing
  for (const s of await listed<Solver>(cons.kube, 'solvers', APPS)) {
    if (s.status?.phase !== 'Solved') t.is(s.status?.contractID, undefined, `${s.metadata?.name ?? ''} ${s.status?.phase ?? ''} holds no contract`);
  }
});
