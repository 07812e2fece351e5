// Two consumers of domain-a race, through their real controllers and supernode, for capacity
// only one of them can have (prov-b sells 4 cpu; each wants 3): exactly one holds a contract, the
// other's Solver says why (its reservation refused, or Pending while discovery finds nothing that
// fits and is tried again), and the seller's book holds one sale.
import test from 'ava';
import type { ContractObject } from '../../controller/rear/book-objects.ts';
import { waitFor } from '../support/wait.ts';
import { createSolver, listed, rearFederation, solverStatus } from './controllers.ts';

test('two consumers race for the last flavour: exactly one wins, the other\'s Solver says why', async (t) => {
  const { cons, cons2, prov } = await rearFederation(t, [], true);
  if (cons2 === undefined) throw new Error('no second consumer');
  const spec = { resources: { cpu: '3', memory: '4Gi', pods: 2 }, durationSeconds: 600, remoteOnly: true };
  await Promise.all([createSolver(cons.kube, 'want', spec), createSolver(cons2.kube, 'want', spec)]);
  const settled = async (m: typeof cons): Promise<{ phase?: string; reason?: string; message?: string } | undefined> => {
    const s = await solverStatus(m.kube, 'want');
    const lost = s?.phase === 'Failed' || (s?.phase === 'Pending' && s.reason === 'NoFlavourFound');
    return s?.phase === 'Peering' || s?.phase === 'Solved' || lost ? s : undefined;
  };
  const won = (s: { phase?: string }): boolean => s.phase === 'Peering' || s.phase === 'Solved';
  // a discovery made before prov-b's flavour is on sale finds nothing and is tried again
  // (Pending/NoFlavourFound is not final), so first one Solver wins, then the other has settled
  await waitFor('one Solver to win', async () => {
    const both = await Promise.all([solverStatus(cons.kube, 'want'), solverStatus(cons2.kube, 'want')]);
    return both.some((s) => s !== undefined && won(s)) || undefined;
  }, { timeoutMs: 120_000 });
  const [a, b] = await Promise.all([waitFor('cons-a\'s Solver to settle', () => settled(cons), { timeoutMs: 120_000 }), waitFor('cons-a2\'s Solver to settle', () => settled(cons2), { timeoutMs: 120_000 })]);
  t.is([a, b].filter(won).length, 1, `exactly one wins: ${a.phase ?? ''}, ${b.phase ?? ''}`);
  const loser = won(a) ? b : a;
  t.true(['NoFlavourFound', 'ReservationRefused'].includes(loser.reason ?? ''), `the loser says why: ${loser.reason ?? ''} ${loser.message ?? ''}`);
  t.regex(loser.message ?? '', /no flavour matching|not on sale any more/);
  const sold = await listed<ContractObject>(prov.kube, 'contracts');
  t.is(sold.length, 1, 'the seller sold once');
  t.is(sold[0]?.spec.buyer, won(a) ? 'cons-a' : 'cons-a2');
});
