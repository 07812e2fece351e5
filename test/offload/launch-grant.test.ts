// Boot dependencies on one host (controller/offload/README.md): api depends on db and both run on
// b. With the origin's launch grant, b starts api on db's LAUNCHED there, without waiting for that
// LAUNCHED to go to a and a's lease to come back. The test holds a's handling of db's LAUNCHED
// until api runs on b: before the grant, api waited for that round trip, so it never started while
// the report was held (the wait below ran out). Once a hears of it, a's lease that says go
// changes nothing on b: no second write of api's HostRequest, no second rollout.
import test from 'ava';
import type { V1Deployment } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import { createApp, readApp, twoComponentApp } from './support.ts';
import { shopFederation } from './shop.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { HostStatusMessage, LeaseMessage } from '../../controller/drone/messages/index.ts';
import type { OffloadMessage } from '../../controller/drone/agent.ts';

test.serial('a host starts a component on its same-host dependency\'s LAUNCHED, granted by the origin, and the origin\'s go changes nothing', async (t) => {
  const { a, b, origin, host } = await shopFederation(t);

  // a does not take in db's LAUNCHED until released
  const held: Array<() => void> = [];
  let holding = true;
  const report = origin.origin.onHostStatus.bind(origin.origin);
  origin.origin.onHostStatus = async (msg: HostStatusMessage) => {
    if (!(holding && msg.component === 'db' && msg.phase === 'LAUNCHED')) return report(msg);
    await new Promise<void>((resolve) => { held.push(resolve); });
    return report(msg);
  };
  const release = (): void => {
    holding = false;
    for (const go of held.splice(0)) go();
  };
  t.teardown(release);
  const received: OffloadMessage[] = [];
  host.federation.agent.on('offload', (m) => { received.push(m); });
  // the leases b has finished with
  const taken: LeaseMessage[] = [];
  const onLease = host.host.onLease.bind(host.host);
  host.host.onLease = async (m: LeaseMessage) => {
    const key = await onLease(m);
    taken.push(m);
    return key;
  };

  const body = twoComponentApp('shop', { cpu: '100m', memory: '64Mi' }) as { spec: Record<string, unknown> };
  body.spec.offload = true;
  await createApp(a.kube, body);
  const hostRequest = (component: string): ReturnType<typeof host.hostRequests.list>[number] | undefined => host.hostRequests.list().find((r) => r.spec.component === component);

  // api is started by b while a has not heard that db runs
  const api = await waitFor('api launched on b', () => (hostRequest('api')?.spec.launch === true ? hostRequest('api') : undefined), { timeoutMs: 30_000, intervalMs: 20 });
  await waitFor('db\'s LAUNCHED held at a', () => (held.length > 0 ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
  const dbHeld = origin.offloadRequests.list().find((r) => r.spec.component === 'db');
  t.not(dbHeld?.status?.phase, 'LAUNCHED', 'a has not taken db\'s LAUNCHED in');
  const db = hostRequest('db');
  t.is(db?.status?.phase, 'LAUNCHED');
  t.deepEqual(api.spec.dependencies, { db: db?.status?.endpoint }, 'api reaches db where b runs it');
  const launchLeases = received.filter((m) => m.kind === 'lease' && m.component === 'api' && m.launch);
  t.is(launchLeases.length, 0, 'no lease from a said go yet');
  t.is(received.filter((m) => m.kind === 'launch-grant').length, 1, 'one grant, for api');
  const namespace = api.metadata.namespace ?? '';
  const name = api.metadata.name ?? '';
  const deployment = await waitFor('api\'s Deployment on b', async () => {
    const d = await b.kube.apps.readNamespacedDeployment({ namespace, name }).catch(() => undefined);
    return (d?.status?.availableReplicas ?? 0) >= 1 ? d : undefined;
  }, { timeoutMs: 30_000, intervalMs: 50 });
  const dependency = await b.kube.core.readNamespacedService({ namespace, name: 'db' });
  t.is(dependency.spec?.type, 'ClusterIP', 'api finds db under its own name on b');

  // a takes db's LAUNCHED in: its lease says go with the same terms, and b writes nothing for it
  // read just before the go, not when launch was first seen: a lease written before it (under
  // load, one CI run saw two) is not the go's
  const before = await b.kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'hostrequests', name }) as { metadata: { generation?: number } };
  const generation = before.metadata.generation;
  if (generation !== api.metadata.generation) t.log(`api's HostRequest went from generation ${String(api.metadata.generation)} to ${String(generation)} before the go`);
  release();
  await waitFor('shop RUNNING', async () => ((await readApp(a.kube, 'shop'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 60_000 });
  await waitFor('b to take a\'s go for api', () => (taken.some((m) => m.component === 'api' && m.launch) ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
  const stored = await b.kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'hostrequests', name }) as { metadata: { generation?: number } };
  t.is(stored.metadata.generation, generation, 'the go changed nothing in api\'s HostRequest');
  const now: V1Deployment = await b.kube.apps.readNamespacedDeployment({ namespace, name });
  t.is(now.metadata?.generation, deployment.metadata?.generation, 'api rolled out once');
});
