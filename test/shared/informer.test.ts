// The informer against the real API server: events in order, survival of an API server restart
// and of quiet periods longer than client-node's 30 s watch abort, and relist on 410 Gone.
import test from 'ava';
import type { KubernetesListObject, V1ConfigMap } from '@kubernetes/client-node';
import { Informer, type WatchFn } from '../../shared/kube/informer.ts';
import { Backoff } from '../../shared/backoff.ts';
import { freshNamespace, ownCluster, sharedKube, type Kube } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';

function configMapInformer(kube: Kube, namespace: string): { informer: Informer<V1ConfigMap>; events: string[] } {
  const informer = new Informer<V1ConfigMap>({
    kc: kube.kc,
    path: `/api/v1/namespaces/${namespace}/configmaps`,
    list: () => kube.core.listNamespacedConfigMap({ namespace, labelSelector: 'informer-test=yes' }),
    labelSelector: 'informer-test=yes',
    backoff: new Backoff({ initialMs: 50, maxMs: 500 }),
  });
  const events: string[] = [];
  for (const event of ['add', 'update', 'delete'] as const) {
    informer.on(event, (cm) => { events.push(`${event} ${cm.metadata?.name ?? ''} ${cm.data?.v ?? ''}`); });
  }
  return { informer, events };
}

const labels = { 'informer-test': 'yes' };

test('an informer lists first, then reports adds, updates and deletes in order', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'informer');
  await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'before', labels }, data: { v: '0' } } });
  await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'unlabelled' }, data: { v: '0' } } });
  const { informer, events } = configMapInformer(kube, namespace);
  t.teardown(() => informer.stop());
  await informer.start();
  t.deepEqual(events, ['add before 0'], 'the first list is in the cache when start() resolves');
  t.is(informer.get('before', namespace)?.data?.v, '0');

  await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'later', labels }, data: { v: '1' } } });
  await kube.core.replaceNamespacedConfigMap({ namespace, name: 'later', body: { metadata: { name: 'later', labels }, data: { v: '2' } } });
  await kube.core.deleteNamespacedConfigMap({ namespace, name: 'before' });
  await waitFor('three events', () => events.length === 4 ? true : undefined);
  t.deepEqual(events, ['add before 0', 'add later 1', 'update later 2', 'delete before 0']);
  t.deepEqual(informer.list().map((cm) => cm.metadata?.name), ['later']);
});

test('an informer rides out an API server restart and sees what changed afterwards', async (t) => {
  const { cluster, kube } = await ownCluster(t);
  await kube.core.createNamespace({ body: { metadata: { name: 'restart' } } });
  const { informer, events } = configMapInformer(kube, 'restart');
  t.teardown(() => informer.stop());
  await informer.start();

  await cluster.stopComponent('kube-apiserver');
  await waitFor('the informer to notice', () => informer.stats.errors > 0 ? true : undefined, { timeoutMs: 60_000 });
  await cluster.startComponent('kube-apiserver');
  await kube.core.createNamespacedConfigMap({ namespace: 'restart', body: { metadata: { name: 'after', labels }, data: { v: '1' } } });
  await waitFor('the event after the restart', () => events.includes('add after 1') ? true : undefined, { timeoutMs: 60_000 });
  t.deepEqual(events, ['add after 1'], 'nothing reported twice');
});

test('a quiet watch outlives client-node\'s 30 s abort and is reopened without relisting', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'quiet');
  const { informer, events } = configMapInformer(kube, namespace);
  t.teardown(() => informer.stop());
  await informer.start();
  // each watch ends after 25 s of quiet; three openings means more than 50 s without events
  await waitFor('two quiet watches to end', () => informer.stats.watches >= 3 ? true : undefined, { timeoutMs: 120_000, intervalMs: 500 });
  t.is(informer.stats.lists, 1, 'no relist was needed');
  await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'late', labels }, data: { v: '1' } } });
  await waitFor('the late event', () => events.includes('add late 1') ? true : undefined);
  t.pass();
});

test('a 410 Gone on the watch leads to a relist that reports what was missed', async (t) => {
  const item = (name: string, rv: string): V1ConfigMap => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
  const lists: Array<KubernetesListObject<V1ConfigMap>> = [
    { items: [item('a', '1'), item('b', '1')], metadata: { resourceVersion: '1' } },
    { items: [item('a', '5')], metadata: { resourceVersion: '9' } },
  ];
  const watchedFrom: string[] = [];
  const watch: WatchFn = async (_path, query, onEvent, signal) => {
    watchedFrom.push(String(query.resourceVersion));
    if (watchedFrom.length === 1) {
      onEvent('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
      return;
    }
    await new Promise<void>((resolve) => { signal.addEventListener('abort', () => { resolve(); }); });
  };
  let listed = 0;
  const informer = new Informer<V1ConfigMap>({ path: '/x', list: () => Promise.resolve(lists[Math.min(listed++, 1)]!), watch });
  const events: string[] = [];
  for (const event of ['add', 'update', 'delete'] as const) informer.on(event, (cm) => { events.push(`${event} ${cm.metadata?.name ?? ''}`); });
  await informer.start();
  await waitFor('the relist', () => watchedFrom.length === 2 ? true : undefined);
  await informer.stop();
  t.deepEqual(watchedFrom, ['1', '9'], 'watched again from the fresh list');
  t.deepEqual(events, ['add a', 'add b', 'update a', 'delete b']);
});
