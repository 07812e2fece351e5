// A host starting a component writes its Deployment and its NodePort Service side by side: neither
// needs the other, and one after the other they were two round trips to the API on every start.
// The test holds b's write of the hosted Deployment and sees the Service written meanwhile; the
// code before wrote the Service only once the Deployment's write returned (the wait ran out).
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { holdRequests } from './held-requests.ts';
import { createApp, readApp, startFederation, twoComponentApp } from './support.ts';

test.serial('a host writes a hosted component\'s Deployment and Service side by side', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '16Gi', pods: '200' }]);
  const origin = a?.controller.controller.offloader;
  if (a === undefined || b === undefined || origin === undefined) throw new Error('no federation');
  await waitFor('a to hear b', () => (origin.federation.agent.providers().includes('b') ? true : undefined), { timeoutMs: 30_000 });

  // writes to b's hosted namespace, in order; Deployments there wait until released
  const writes: string[] = [];
  const hostedWrite = (method: string, path: string): RegExpExecArray | null => (method === 'PATCH' ? /\/namespaces\/drone-a\/(deployments|services)\/([^/?]+)$/.exec(path) : null);
  const held = holdRequests(t, (method, path) => hostedWrite(method, path)?.[1] === 'deployments', (method, path) => {
    const hosted = hostedWrite(method, path);
    if (hosted !== null) writes.push(`${hosted[1] ?? ''}/${hosted[2] ?? ''}`);
  });

  const body = twoComponentApp('shop', { cpu: '100m', memory: '64Mi' }) as { spec: Record<string, unknown> };
  body.spec.offload = true;
  await createApp(a.kube, body);
  const deployment = await waitFor('a hosted Deployment\'s write held', () => (held.count() > 0 ? writes.find((w) => w.startsWith('deployments/')) : undefined), { timeoutMs: 30_000, intervalMs: 20 });
  const name = deployment.slice('deployments/'.length);
  await waitFor('its Service written while the Deployment\'s write is held', () => (writes.includes(`services/${name}`) ? true : undefined), { timeoutMs: 15_000, intervalMs: 20 });
  t.true(held.holding(), 'the Deployment\'s write had not returned');
  held.release();
  await waitFor('shop RUNNING', async () => ((await readApp(a.kube, 'shop'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 60_000 });
});
