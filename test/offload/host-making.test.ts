// A HostRequest is made once per ACK, whatever overtakes it. b's quota writes are held, so the
// HostRequests of the first app (whose namespace does not exist yet) wait, and the leases from a
// arrive before them: each waits for the creation under way instead of making it a second time.
// The code before made it again from every such lease (a guard pass and a create refused 409):
// 4 creations for 2 components. Once the namespace exists, the next app's HostRequests are made
// without waiting for the quota, and its Deployments are not applied until the quota holds them.
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { holdRequests } from './held-requests.ts';
import { createApp, readApp, startFederation, twoComponentApp } from './support.ts';
import type { LeaseMessage } from '../../controller/drone/messages/index.ts';

test.serial('an early lease waits for its HostRequest; the quota is off the HostRequest\'s path, not the Deployment\'s', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '16Gi', pods: '200' }]);
  const origin = a?.controller.controller.offloader;
  const host = b?.controller.controller.offloader;
  if (a === undefined || b === undefined || origin === undefined || host === undefined) throw new Error('no federation');
  await waitFor('a to hear b', () => (origin.federation.agent.providers().includes('b') ? true : undefined), { timeoutMs: 30_000 });

  const leases: string[] = [];
  const onLease = host.host.onLease.bind(host.host);
  host.host.onLease = async (msg: LeaseMessage) => {
    leases.push(msg.component);
    return onLease(msg);
  };
  const creates: string[] = [];
  let quotaWrites = 0;
  const quota = (method: string, path: string): boolean => method !== 'GET' && path.includes('/resourcequotas');
  const held = holdRequests(t, quota, (method, path) => {
    if (method === 'POST' && path.endsWith('/hostrequests')) creates.push(path);
    if (quota(method, path)) quotaWrites += 1;
  });

  const app = (name: string): Record<string, unknown> => {
    const body = twoComponentApp(name, { cpu: '100m', memory: '64Mi' }, `-${name}`) as { spec: Record<string, unknown> };
    body.spec.offload = true;
    return body;
  };
  await createApp(a.kube, app('one'));
  // both components' leases reached b while their HostRequests wait for the held quota
  await waitFor('both leases at b', () => (new Set(leases).size === 2 && held.count() > 0 ? true : undefined), { timeoutMs: 30_000, intervalMs: 10 });
  t.is(host.hostRequests.list().length, 0, 'no HostRequest before its namespace\'s quota');
  held.release();
  await waitFor('one RUNNING', async () => ((await readApp(a.kube, 'one'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 60_000 });
  t.is(creates.length, 2, `one creation per component, not one per lease too: ${creates.join(', ')}`);
  t.true(quotaWrites <= 2, `quota written ${String(quotaWrites)} times for two components accepted together`);

  // the namespace exists: the next app's HostRequests are made while its quota is held
  const second = holdRequests(t, quota);
  await createApp(a.kube, app('two'));
  const made = await waitFor('two\'s HostRequests while the quota is held', () => {
    const mine = host.hostRequests.list().filter((r) => r.spec.app.includes('.two.'));
    return mine.length === 2 && second.count() > 0 ? mine : undefined;
  }, { timeoutMs: 30_000, intervalMs: 10 });
  await waitFor('db told to start', () => (host.hostRequests.list().some((r) => r.spec.app.includes('.two.') && r.spec.launch === true) ? true : undefined), { timeoutMs: 30_000, intervalMs: 10 });
  const hosted = async (): Promise<number> => (await Promise.all(made.map(async (r) => b.kube.apps.readNamespacedDeployment({ namespace: r.metadata.namespace ?? '', name: r.metadata.name ?? '' }).catch(() => undefined)))).filter((d) => d !== undefined).length;
  t.true(second.count() > 0, 'the quota is still held');
  t.is(await hosted(), 0, 'no Deployment before the quota holds its slice');
  second.release();
  await waitFor('two RUNNING', async () => ((await readApp(a.kube, 'two'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 60_000 });
  t.is(await hosted(), 2);
  t.is(creates.length, 4, 'two more creations, none refused');
});
