// The supernode of the consumer's domain is down when an intent comes and restarts mid-discovery:
// the consumer's controller keeps asking (the same request, then a new reconcile) and, once sn-a's
// controller is back, buys from prov-b as if nothing had happened.
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { startMember } from '../offload/support.ts';
import { createSolver, rearFederation, solverStatus } from './controllers.ts';

test('the supernode restarting mid-discovery: the Solver waits on discovery, then gets its contract', async (t) => {
  const { cons, sn } = await rearFederation(t);
  await sn.controller.controller.stop();
  await createSolver(cons.kube, 'patient', { resources: { cpu: '1', memory: '1Gi' }, durationSeconds: 600, remoteOnly: true });
  const waiting = await waitFor('the Solver to wait on discovery', async () => { const s = await solverStatus(cons.kube, 'patient'); return s?.phase === 'Discovering' ? s : undefined; });
  t.like(waiting, { reason: 'WaitingForDiscovery' });
  sn.controller = await startMember(t, sn);
  const done = await waitFor('the Solver to hold a contract', async () => { const s = await solverStatus(cons.kube, 'patient'); return s?.phase === 'Peering' || s?.phase === 'Solved' || s?.phase === 'Failed' ? s : undefined; }, { timeoutMs: 180_000 });
  t.like(done, { provider: 'prov-b' });
  t.true(done.phase === 'Peering' || done.phase === 'Solved', `${done.phase ?? ''}/${done.reason ?? ''}: ${done.message ?? ''}`);
});
