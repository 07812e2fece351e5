// Offloading through faults and changes: the offloading cluster's controller restarted
// mid-way launches nothing twice; a template change rolls to the host (MOD/MOD_ACK); a host whose
// origin vanished garbage-collects the job and its slice when the lease expires.
import test from 'ava';
import type { V1Deployment } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import { APPS, createApp, listCustom, readApp, recordHostPhases, startFederation, startMember, twoComponentApp, type Member } from './support.ts';

const SMALL = { cpu: '500m', memory: '512Mi' };
const BIG = { cpu: '4', memory: '8Gi' };

async function running(m: Member, name: string): Promise<void> {
  await waitFor(`${name} to be RUNNING on ${m.id}`, async () => ((await readApp(m.kube, name))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 180_000 });
}

async function hostedDeployments(m: Member, origin: string): Promise<V1Deployment[]> {
  return (await m.kube.apps.listNamespacedDeployment({ namespace: `drone-${origin}` }).catch(() => ({ items: [] }))).items;
}

async function federationReady(a: Member): Promise<void> {
  await waitFor('a to hear b\'s slice advert', () => (a.controller.controller.offloader?.federation.agent.providers().includes('b') === true ? true : undefined), { timeoutMs: 30_000 });
}

test.serial('the offloading cluster\'s controller restarted mid-way rebuilds its view and launches nothing twice', async (t) => {
  // a lease longer than the restart, as the default is: b keeps what it accepted meanwhile
  const lease = ['--drone-lease-seconds', '30'];
  const [a, b] = await startFederation(t, [{ id: 'a', ...SMALL, args: lease }, { id: 'b', ...BIG, args: lease }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  await federationReady(a);
  await createApp(a.kube, twoComponentApp('shop'));
  // stop a's controller as soon as b has accepted the first component, before a could finish
  await waitFor('b to accept a component', async () => ((await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a')).length > 0 ? true : undefined), { timeoutMs: 60_000 });
  await a.controller.controller.stop();
  const before = await readApp(a.kube, 'shop');
  t.not(before?.status?.phase, 'RUNNING', 'stopped mid-way');

  a.controller = await startMember(t, a);
  await running(a, 'shop');
  const app = await readApp(a.kube, 'shop');
  t.deepEqual(app?.status?.components?.map((c) => [c.name, c.cluster]), [['api', 'b'], ['db', 'b']]);
  // settle: b holds exactly one HostRequest and one Deployment per component, no leftovers of an earlier auction
  const settled = await waitFor('b to hold one of each', async () => {
    const hosted = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
    return hosted.length === 2 ? hosted : undefined;
  }, { timeoutMs: 30_000 });
  t.deepEqual(settled.map((h) => h.spec.component).sort(), ['api', 'db']);
  t.true(settled.every((h) => h.spec.app === app?.status?.components?.find((c) => c.name === h.spec.component)?.app), 'each HostRequest belongs to the auction the origin recorded');
  const deployments = await waitFor('two Deployments on b', async () => { const d = await hostedDeployments(b, 'a'); return d.length === 2 ? d : undefined; }, { timeoutMs: 30_000 });
  t.deepEqual(deployments.map((d) => d.metadata?.labels?.['drone.edgeshifu.io/component']).sort(), ['api', 'db']);
  t.is(b.controller.controller.offloader?.federation.agent.hosted().length, 2, 'b\'s ledger holds the two components once');
});

test.serial('a template change rolls to where the component runs (MOD, MOD_ACK), with every message signed and signatures required', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', ...SMALL }, { id: 'b', ...BIG }], { signed: true });
  if (a === undefined || b === undefined) throw new Error('no federation');
  for (const m of [a, b]) t.deepEqual(m.controller.controller.offloader?.federation.signing, { signs: true, requires: true });
  await federationReady(a);
  const body = twoComponentApp('shop') as { spec: { components: Array<{ name: string; template: { spec: { template: { spec: { containers: Array<{ image: string }> } } } } }> } };
  await createApp(a.kube, body);
  await running(a, 'shop');
  const dbPhases = recordHostPhases(b, 'db');
  const image = (d: V1Deployment | undefined): string | undefined => d?.spec?.template.spec?.containers[0]?.image;
  const dbOnB = async (): Promise<V1Deployment | undefined> => (await hostedDeployments(b, 'a')).find((d) => d.metadata?.labels?.['drone.edgeshifu.io/component'] === 'db');
  t.is(image(await dbOnB()), 'example.com/db:1');

  await a.kube.custom.patchNamespacedCustomObject({
    group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: APPS, plural: 'dronefederateddeployments', name: 'shop',
    body: [{ op: 'replace', path: '/spec/components/1/template/spec/template/spec/containers/0/image', value: 'example.com/db:2' }],
  });
  await waitFor('b to run db:2', async () => (image(await dbOnB()) === 'example.com/db:2' ? true : undefined), { timeoutMs: 60_000 });
  await waitFor('a to hear MOD_ACK for db', () => (a.controller.logs.some((l) => l.includes('"ack":"MOD_ACK"') && l.includes('"component":"db"')) ? true : undefined), { timeoutMs: 60_000 });
  t.is(image(await (async () => (await hostedDeployments(b, 'a')).find((d) => d.metadata?.labels?.['drone.edgeshifu.io/component'] === 'api'))()), 'example.com/api:1', 'api is left as it was');
  t.is(dbPhases.at(-1), 'LAUNCHED');
  await running(a, 'shop');
});

test.serial('a host whose offloading cluster vanished drops the job and frees its slice when the lease expires', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', ...SMALL }, { id: 'b', ...BIG }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  await federationReady(a);
  await createApp(a.kube, twoComponentApp('shop'));
  await running(a, 'shop');
  const agent = b.controller.controller.offloader?.federation.agent;
  const offered = agent?.hosted().length;
  t.is(offered, 2);

  await a.controller.controller.stop(); // the origin vanishes without a word
  const hosted = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
  t.is(hosted.length, 2, 'still held right after');
  await waitFor('b to drop both HostRequests', async () => ((await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a')).length === 0 ? true : undefined), { timeoutMs: 60_000 });
  t.is(agent?.hosted().length, 0, 'the slice is free again');
  t.regex(b.controller.logs.join(''), /lease expired: releasing the hosted component/);
  await waitFor('b\'s Deployments for a to go', async () => ((await hostedDeployments(b, 'a')).length === 0 ? true : undefined), { timeoutMs: 60_000 });
});
