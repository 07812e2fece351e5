// Pods are a resource of slicing: the offloading benchmark stalled when a KWOK
// node's pod limit was reached while DRONE still offered its cpu and memory. Three real control
// planes: b is by far the roomiest in cpu and memory, but its node takes 4 pods, and it offers
// half (the tests' --drone-scale-percent 50): 2 pods. What b advertises is read off its broker,
// as a neighbour reads it.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { droneBusClient } from '../../controller/drone/bus.ts';
import type { Resources } from '../../controller/drone/model.ts';
import { TOPIC_ROOT } from '../../shared/bus/topics.ts';
import { waitFor } from '../support/wait.ts';
import { APPS, createApp, readApp, startFederation, twoComponentApp, type Member } from './support.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';

/** Every slice b advertises from now on, as its neighbour a hears it on b's broker. */
async function advertsOf(t: ExecutionContext, host: Member, listener: Member): Promise<Resources[]> {
  const seen: Resources[] = [];
  const client = droneBusClient({ url: `mqtt://127.0.0.1:${host.port}`, cluster: listener.id, username: listener.id, password: listener.password });
  t.teardown(() => client.stop());
  await client.start();
  // a neighbour may subscribe to the federation's broadcasts as a whole only (shared/bus/acl.ts)
  await client.subscribe([`${TOPIC_ROOT}/+/fed/#`], (m) => { if (m.kind === 'slice-advert' && m.sender === host.id) seen.push(m.offered); });
  return seen;
}

async function advertised(seen: readonly Resources[], what: string, matches: (r: Resources) => boolean): Promise<Resources> {
  return waitFor(`b to advertise ${what}`, () => { const last = seen.at(-1); return last !== undefined && matches(last) ? last : undefined; }, { timeoutMs: 60_000 });
}

async function runningOn(m: Member, name: string, body: Record<string, unknown>): Promise<string[]> {
  (body as { spec: Record<string, unknown> }).spec.offload = true;
  await createApp(m.kube, body);
  const app = await waitFor(`${name} to run`, async () => { const d = await readApp(m.kube, name); return d?.status?.phase === 'RUNNING' ? d : undefined; }, { timeoutMs: 180_000 });
  return app.status?.components?.map((x) => x.cluster ?? '') ?? [];
}

const small = { cpu: '100m', memory: '64Mi' };

test.serial('a cluster whose pods fill its slice or its node advertises no pod left, and the next components go elsewhere', async (t) => {
  const [a, b, c] = await startFederation(t, [
    { id: 'a', cpu: '500m', memory: '512Mi' },
    { id: 'b', cpu: '16', memory: '32Gi', pods: '4' },
    { id: 'c', cpu: '2', memory: '4Gi' },
  ]);
  if (a === undefined || b === undefined || c === undefined) throw new Error('no federation');
  const seen = await advertsOf(t, b, a);
  await waitFor('a to hear b and c', () => {
    const providers = a.controller.controller.offloader?.federation.agent.providers() ?? [];
    return providers.includes('b') && providers.includes('c') ? true : undefined;
  }, { timeoutMs: 30_000 });
  const before = await advertised(seen, 'its 2 pods', (r) => r.pods === 2);
  t.true(before.cpu >= 7_900, `b offers ${before.cpu}m`);

  // b takes the first app (the roomiest); its two hosted pods fill the 2 pods it offers
  t.deepEqual(await runningOn(a, 'one', twoComponentApp('one', small, '-1')), ['b', 'b'], 'with pods to offer, b wins');
  const full = await advertised(seen, 'no pod left', (r) => r.pods === 0);
  t.true(full.cpu >= 7_600 && full.memory >= 16_000, `cpu and memory still offered: ${JSON.stringify(full)}`);
  const hostedPods = await b.kube.core.listNamespacedPod({ namespace: 'drone-a' });
  t.is(hostedPods.items.length, 2, 'the two hosted pods run on b\'s node');

  t.deepEqual(await runningOn(a, 'two', twoComponentApp('two', small, '-2')), ['c', 'c'], 'b had cpu and memory but no pod');
  t.is(b.controller.controller.offloader?.federation.agent.hosted().length, 2, 'b holds only the first app');

  // the first app goes: its pods are released with its slice
  await a.kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: APPS, plural: 'dronefederateddeployments', name: 'one' });
  await advertised(seen, 'its 2 pods again', (r) => r.pods === 2);

  // b's own pods fill its node (3 of 4, no cpu or memory asked): 1 pod free, half of it floored is 0
  await b.kube.apps.createNamespacedDeployment({
    namespace: 'default',
    body: {
      metadata: { name: 'local-work' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'local-work' } }, template: { metadata: { labels: { app: 'local-work' } }, spec: { containers: [{ name: 'w', image: 'example.com/w:1' }] } } },
    },
  });
  const own = await advertised(seen, 'no pod left once its own pods run', (r) => r.pods === 0);
  t.true(own.cpu >= 7_900, `its own pods asked no cpu: ${JSON.stringify(own)}`);
  t.deepEqual(await runningOn(a, 'three', twoComponentApp('three', small, '-3')), ['c', 'c']);
  t.is(b.controller.controller.offloader?.federation.agent.hosted().length, 0);
  t.is(c.controller.controller.offloader?.federation.agent.hosted().length, 4);
});
