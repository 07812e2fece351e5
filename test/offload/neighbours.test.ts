// Offloading among three real clusters: the second neighbour is chosen when the first is
// full, and when that host dies its components re-enter the agreement and move to a cluster that
// has room again.
import test from 'ava';
import { waitFor } from '../support/wait.ts';
import { createApp, readApp, recordPhases, startFederation, twoComponentApp } from './support.ts';

test.serial('the second neighbour takes the app when the first is full; when it dies, the components move', async (t) => {
  const [a, b, c] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '4', memory: '8Gi' }, { id: 'c', cpu: '2', memory: '4Gi' }]);
  if (a === undefined || b === undefined || c === undefined) throw new Error('no federation');
  await waitFor('a to hear b and c', () => {
    const providers = a.controller.controller.offloader?.federation.agent.providers() ?? [];
    return providers.includes('b') && providers.includes('c') ? true : undefined;
  }, { timeoutMs: 30_000 });

  // b's own work fills it: its slice shrinks below what the app needs
  const bAgent = b.controller.controller.offloader?.federation.agent;
  const roomy = bAgent?.offered().cpu ?? 0;
  await b.kube.apps.createNamespacedDeployment({
    namespace: 'default',
    body: {
      metadata: { name: 'local-work' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'local-work' } }, template: { metadata: { labels: { app: 'local-work' } }, spec: { containers: [{ name: 'w', image: 'example.com/w:1', resources: { requests: { cpu: '3500m', memory: '1Gi' } } }] } } },
    },
  });
  await waitFor('b\'s slice to shrink', () => ((bAgent?.offered().cpu ?? Infinity) < 600 ? true : undefined), { timeoutMs: 60_000 });
  t.true(roomy >= 1_500, `b offered ${roomy}m before its own work came`);

  const phases = recordPhases(a, 'shop');
  // offload: true, so a (which could run one small component) never bids: where it goes is b's and c's affair
  const body = twoComponentApp('shop', { cpu: '300m', memory: '256Mi' }) as { spec: Record<string, unknown> };
  body.spec.offload = true;
  await createApp(a.kube, body);
  const first = await waitFor('shop to run', async () => { const app = await readApp(a.kube, 'shop'); return app?.status?.phase === 'RUNNING' ? app : undefined; }, { timeoutMs: 180_000 });
  t.deepEqual(first.status?.components?.map((x) => x.cluster), ['c', 'c'], 'c took it: b had no room');

  // c dies (its controller and broker stop); b gets room back
  await c.controller.controller.stop();
  await b.kube.apps.deleteNamespacedDeployment({ namespace: 'default', name: 'local-work' });
  const moved = await waitFor('shop to run again, elsewhere', async () => {
    const app = await readApp(a.kube, 'shop');
    return app?.status?.phase === 'RUNNING' && app.status.components?.every((x) => x.cluster === 'b') === true ? app : undefined;
  }, { timeoutMs: 180_000 });
  t.deepEqual(moved.status?.components?.map((x) => [x.name, x.cluster, x.phase]), [['api', 'b', 'LAUNCHED'], ['db', 'b', 'LAUNCHED']]);
  const afterFirstRun = phases.slice(phases.indexOf('RUNNING') + 1);
  t.deepEqual(afterFirstRun, ['SCHEDULING', 'PENDING', 'RUNNING'], 'the lost components went back to the agreement, together');
  t.true((moved.status?.attempt ?? 0) >= 2, 'a new auction placed them');
});

test.serial('a host that refuses at commit (NACK, its image policy) sends the component to the next voter', async (t) => {
  const [a, b, c] = await startFederation(t, [
    { id: 'a', cpu: '500m', memory: '512Mi' },
    // b has the most room, so it wins the vote, but it runs only its own registry's images for any neighbour
    { id: 'b', cpu: '8', memory: '16Gi', args: ['--drone-allowed-images', 'registry.b.example/'] },
    { id: 'c', cpu: '2', memory: '4Gi' },
  ]);
  if (a === undefined || b === undefined || c === undefined) throw new Error('no federation');
  await waitFor('a to hear b and c', () => {
    const providers = a.controller.controller.offloader?.federation.agent.providers() ?? [];
    return providers.includes('b') && providers.includes('c') ? true : undefined;
  }, { timeoutMs: 30_000 });
  await createApp(a.kube, twoComponentApp('shop', { cpu: '300m', memory: '256Mi' }));
  const app = await waitFor('shop to run', async () => { const d = await readApp(a.kube, 'shop'); return d?.status?.phase === 'RUNNING' ? d : undefined; }, { timeoutMs: 180_000 });
  t.deepEqual(app.status?.components?.map((x) => x.cluster), ['c', 'c'], 'c runs it');
  const refusals = a.controller.logs.filter((l) => l.includes('offload request refused (NACK)'));
  t.true(refusals.length > 0, 'b was asked first and refused');
  t.regex(refusals[0] ?? '', /b \(Pod Security restricted\) refuses \w+: spec\.template\.spec\.containers\[0\]\.image \(example\.com\/\w+:1 is not under registry\.b\.example\/ \(b's limit for every neighbour\)\)/);
  t.true(a.controller.logs.some((l) => l.includes('"msg":"put to auction"') && l.includes('"excluded":["b"]')), 'the components went back to the agreement without b');
  t.is(b.controller.controller.offloader?.federation.agent.hosted().length, 0, 'b holds nothing for a');
  t.is(c.controller.controller.offloader?.federation.agent.hosted().length, 2);
});
