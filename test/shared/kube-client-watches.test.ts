// Watches do not take the request pool's connections: a client bounded to 2 sockets with 4 watches
// open still answers requests (before, as many watches as sockets left every request queued until
// a watch ended; the controller with REAR's peering on runs more informers than its 16 sockets).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import test from 'ava';
import { KubeClient, endpointFromKubeconfig } from '../../shared/kube/client.ts';
import { sharedKube, freshNamespace } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';

test('four watches on a client of two sockets: requests are still answered, and every watch sees its event', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'watches');
  const client = new KubeClient(endpointFromKubeconfig(kube.kubeconfigPath), { maxSockets: 2 });
  const stop = new AbortController();
  t.teardown(() => { stop.abort(); client.close(); });
  const seen = new Set<string>();
  const paths = ['configmaps', 'secrets', 'services', 'serviceaccounts'].map((plural) => `/api/v1/namespaces/${namespace}/${plural}`);
  const opened = paths.map((path) => client.watch(path, {}, (type, object) => {
    const name = (object as { metadata?: { name?: string } }).metadata?.name ?? '';
    if (type === 'ADDED' && name.startsWith('probe-')) seen.add(path);
  }, stop.signal).catch(() => undefined));

  // more requests than sockets, while four watches hold their connections
  const names = await Promise.all([1, 2, 3, 4, 5].map(async () => (await client.request<{ metadata: { name: string } }>('GET', `/api/v1/namespaces/${namespace}`)).metadata.name));
  t.deepEqual(names, [namespace, namespace, namespace, namespace, namespace]);

  await client.request('POST', paths[0] ?? '', { body: { metadata: { name: 'probe-cm' } } });
  await client.request('POST', paths[1] ?? '', { body: { metadata: { name: 'probe-secret' } } });
  await client.request('POST', paths[2] ?? '', { body: { metadata: { name: 'probe-svc' }, spec: { ports: [{ port: 80 }] } } });
  await client.request('POST', paths[3] ?? '', { body: { metadata: { name: 'probe-sa' } } });
  await waitFor('every watch to see its object', () => (seen.size === 4 ? true : undefined));
  t.deepEqual([...seen].sort(), [...paths].sort());
  stop.abort();
  await Promise.all(opened);
});

test('a watch the server ended is renewed on the connection it had: no new TLS connection per renewal', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'renewals');
  const client = new KubeClient(endpointFromKubeconfig(kube.kubeconfigPath));
  const stop = new AbortController();
  t.teardown(() => { stop.abort(); client.close(); });
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const sockets: unknown[] = [];
  const onResponse = (message: unknown): void => {
    const { request } = message as { request: { path: string; socket: unknown } };
    if (request.path.startsWith(`${path}?`) && request.path.includes('watch=true')) sockets.push(request.socket);
  };
  subscribe('http.client.response.finish', onResponse);
  t.teardown(() => { unsubscribe('http.client.response.finish', onResponse); });
  // three watches in a row, each ended by the API server after a second, as the Informer renews them
  for (let i = 0; i < 3; i += 1) await client.watch(path, { timeoutSeconds: 1 }, () => undefined, stop.signal);
  t.is(sockets.length, 3);
  t.is(new Set(sockets).size, 1, 'each renewal opened a connection of its own');
  // and a request still goes through, on a connection of the request pool
  const listed = await client.request<{ items: Array<{ metadata: { name: string } }> }>('GET', path);
  t.true(listed.items.some((item) => item.metadata.name === 'kube-root-ca.crt'));
});
