// A lease lands although the host's cache lags its HostRequest: the host writes the lease over
// the stored version when the cached one is no longer current (409), instead of retrying over the
// same stale copy. Under load the cache lagged the host's own status write, the lease lost three
// times, and the component waited for the next renewal round (11.6 s for one of 300 apps). A write
// right after the host's own now goes over what that write returned (controller/offload/latest.ts),
// so the test makes the stored version newer than anything b wrote: another writer annotates db's
// HostRequest after b's status write, and b's cache keeps its first version until a lease has been
// written. The code before the stored-version retry never wrote it (the wait ran out); now a
// write conflicts, one over the stored version lands, and a sends db one lease that says go.
import test from 'ava';
import { KubeApiError, KubeClient } from '../../shared/kube/client.ts';
import { waitFor } from '../support/wait.ts';
import { createApp, readApp, startFederation, twoComponentApp } from './support.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import type { OffloadMessage } from '../../controller/drone/agent.ts';
import type { LeaseMessage } from '../../controller/drone/messages/index.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';

test.serial('a lease is written over the stored HostRequest when the host\'s cache lags it', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '16Gi', pods: '200' }]);
  const origin = a?.controller.controller.offloader;
  const host = b?.controller.controller.offloader;
  if (a === undefined || b === undefined || origin === undefined || host === undefined) throw new Error('no federation');
  await waitFor('a to hear b', () => (origin.federation.agent.providers().includes('b') ? true : undefined), { timeoutMs: 30_000 });

  // b's cache shows db's HostRequest as it was made (before b's own status write) until a
  // lease's write of it succeeds; leases to db wait for that status write
  const made = new Map<string, HostRequest>();
  let lagging = true;
  let conflicts = 0;
  let annotated = false;
  const cache = host.hostRequests;
  const get = cache.get.bind(cache);
  cache.on('add', (r, key) => { if (r.spec.component === 'db') made.set(key, r); });
  cache.get = (key: string) => (lagging ? made.get(key) ?? get(key) : get(key));
  const onLease = host.host.onLease.bind(host.host);
  host.host.onLease = async (m: LeaseMessage) => {
    if (m.component === 'db') {
      await waitFor('db ACCEPTED on b', () => (cache.list().some((r) => r.spec.component === 'db' && r.status?.phase !== undefined) ? true : undefined), { timeoutMs: 30_000, intervalMs: 10 });
      if (!annotated) {
        annotated = true;
        await annotateDb(b.kube);
      }
    }
    return onLease(m);
  };
  const original = Reflect.get<KubeClient, 'request'>(KubeClient.prototype, 'request');
  KubeClient.prototype.request = async function watching<T>(this: KubeClient, method: string, path: string, options?: Parameters<KubeClient['request']>[2]): Promise<T> {
    const lease = method === 'PATCH' && /\/hostrequests\/db-[^/]+$/.test(path) && (options?.body as { spec?: unknown } | undefined)?.spec !== undefined;
    try {
      const result = await (original.call(this, method, path, options) as Promise<T>);
      if (lease) lagging = false;
      return result;
    } catch (err) {
      if (lease && err instanceof KubeApiError && err.code === 409) conflicts += 1;
      throw err;
    }
  };
  t.teardown(() => { KubeClient.prototype.request = original; });
  const sent: OffloadMessage[] = [];
  host.federation.agent.on('offload', (m) => { sent.push(m); });

  const body = twoComponentApp('shop', { cpu: '100m', memory: '64Mi' }) as { spec: Record<string, unknown> };
  body.spec.offload = true;
  await createApp(a.kube, body);
  await waitFor('db\'s lease written on b', () => (lagging ? undefined : true), { timeoutMs: 30_000, intervalMs: 20 });
  t.log(`${String(conflicts)} conflicting lease writes`);
  // at least the write over the stale copy; under load b's own status write (or a second lease to
  // db) can land between the read of the stored version and the write over it: one more 409, and
  // the reconcile's retry writes it
  t.true(conflicts >= 1, 'a write over the stale copy, then over the stored version');
  await waitFor('shop RUNNING', async () => ((await readApp(a.kube, 'shop'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 60_000 });
  t.is(sent.filter((m) => m.kind === 'lease' && m.component === 'db' && m.launch).length, 1, 'one lease said go to db: none was sent again as stale');
});

/** Another writer's change to db's HostRequest (a PUT through client-node, not b's client), retried over a race with b's own writes. */
async function annotateDb(kube: Parameters<typeof createApp>[0]): Promise<void> {
  const at = { group: GROUP, version: VERSION, namespace: 'drone-a', plural: 'hostrequests' };
  await waitFor('db annotated by another writer', async () => {
    const list = await kube.custom.listNamespacedCustomObject(at) as { items: HostRequest[] };
    const db = list.items.find((r) => r.spec.component === 'db');
    const name = db?.metadata.name;
    if (db === undefined || name === undefined) return undefined;
    db.metadata.annotations = { ...db.metadata.annotations, 'test.edgeshifu.io/touched': 'yes' };
    try {
      await kube.custom.replaceNamespacedCustomObject({ ...at, name, body: db });
      return true;
    } catch {
      return undefined; // a 409 against b's own write: read and try again
    }
  }, { timeoutMs: 30_000, intervalMs: 20 });
}
