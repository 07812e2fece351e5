// The origin sends a component's lease before it writes its deployment's status, not after: the
// host starts on the lease, and the status write is a round trip to the API it need not wait for.
// The test holds a's status writes from PENDING on; b still gets db's go and starts it. Before,
// the lease went out after that write, so b never heard go while the write was held (the wait ran
// out).
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { holdRequests } from './held-requests.ts';
import { createApp, readApp, startFederation, twoComponentApp } from './support.ts';

test.serial('a host hears go before the origin has written its deployment\'s status', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '16Gi', pods: '200' }]);
  const origin = a?.controller.controller.offloader;
  const host = b?.controller.controller.offloader;
  if (a === undefined || b === undefined || origin === undefined || host === undefined) throw new Error('no federation');
  await waitFor('a to hear b', () => (origin.federation.agent.providers().includes('b') ? true : undefined), { timeoutMs: 30_000 });

  // a's status writes that say PENDING or later wait until released
  const held = holdRequests(t, (method, path, options) => {
    const phase = (options?.body as { status?: { phase?: string } } | undefined)?.status?.phase;
    return method === 'PATCH' && path.includes('/dronefederateddeployments/') && path.endsWith('/status') && phase !== undefined && phase !== 'SCHEDULING';
  });

  const body = twoComponentApp('shop', { cpu: '100m', memory: '64Mi' }) as { spec: Record<string, unknown> };
  body.spec.offload = true;
  await createApp(a.kube, body);
  const db = await waitFor('db told to start on b', () => host.hostRequests.list().find((r) => r.spec.component === 'db' && r.spec.launch === true), { timeoutMs: 30_000, intervalMs: 20 });
  t.true(held.count() > 0, 'a\'s PENDING write is held');
  t.is((await readApp(a.kube, 'shop'))?.status?.phase, 'SCHEDULING', 'a has not written PENDING yet');
  t.is(db.spec.launch, true);
  held.release();
  await waitFor('shop RUNNING', async () => ((await readApp(a.kube, 'shop'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 60_000 });
});
