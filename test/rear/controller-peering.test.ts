// REAR's whole life through the real controllers on three control planes: a Solver on cons-a buys
// from prov-b, the controller's peering makes the virtual node, the Allocation turns Active and
// the Solver Solved; a Deployment tolerating the node's taint runs its pod there, Running on prov-b
// in rear-cons-a with its status reflected back; a captured PURCHASE and a captured pod message
// sent again act once; and at the contract's expiry the node is drained (both sides) and removed,
// the Allocation Released and the Solver Ended (ContractExpired), a normal end.
import test from 'ava';
import type { V1Pod } from '@kubernetes/client-node';
import mqtt from 'mqtt';
import { TOPIC_ROOT } from '../../shared/bus/topics.ts';
import { samples } from '../support/metric-samples.ts';
import { waitFor } from '../support/wait.ts';
import { APPS } from '../offload/support.ts';
import { carriedDeployment } from './peering-support.ts';
import { createSolver, listed, rearFederation, solverStatus } from './controllers.ts';

interface AllocationObject { spec: { contract: string; nodeName?: string }; status?: { phase?: string } }

interface ContractObject { spec: { contractID: string } }

test('Solver → contract → virtual node Ready → Allocation Active → Solved → a pod Running on the provider; a replayed purchase and pod message act once; expiry drains and removes the node and ends the Solver', async (t) => {
  const { cons, sn, prov } = await rearFederation(t);
  // what cons-a sends is captured at cons-a's broker (it publishes there; its relay carries it on),
  // to be sent again: its PURCHASE to sn-a, later its rear-pod to prov-b
  const captured: Array<{ topic: string; payload: Buffer }> = [];
  const sniffer = await mqtt.connectAsync(`mqtt://127.0.0.1:${cons.port}`, { username: 'cons-a', password: cons.password, reconnectPeriod: 0 });
  t.teardown(() => sniffer.endAsync());
  sniffer.on('message', (topic, payload) => { captured.push({ topic, payload }); });
  await sniffer.subscribeAsync([`${TOPIC_ROOT}/cons-a/to/+/rear-purchase`, `${TOPIC_ROOT}/cons-a/to/prov-b/rear-pod`], { qos: 1 });
  await createSolver(cons.kube, 'web', { resources: { cpu: '2', memory: '2Gi', pods: 4 }, durationSeconds: 60, remoteOnly: true, maxPrice: { amount: '5', currency: 'EUR', period: 'hourly' } });
  const phases: string[] = [];
  const solved = await waitFor('the Solver to be Solved', async () => {
    const s = await solverStatus(cons.kube, 'web');
    const p = `${s?.phase ?? ''}/${s?.reason ?? ''}`;
    if (s?.phase !== undefined && phases.at(-1) !== p) phases.push(p);
    return s?.phase === 'Solved' ? s : undefined;
  }, { timeoutMs: 120_000, intervalMs: 50 });
  const contractId = solved.contractID ?? '';
  const node = `rear-${contractId}`;
  t.like(solved, { reason: 'VirtualNodeReady', provider: 'prov-b', virtualNode: node });
  t.like(solved.conditions?.[0], { type: 'Ready', status: 'True', reason: 'VirtualNodeReady' });
  t.is(phases.at(-1), 'Solved/VirtualNodeReady');
  t.true(phases.some((p) => p.startsWith('Peering/') || p.startsWith('Purchasing/') || p.startsWith('Discovering/')), phases.join(' → '));
  const [allocation] = await listed<AllocationObject>(cons.kube, 'allocations', APPS);
  t.like(allocation, { spec: { contract: contractId, nodeName: node }, status: { phase: 'Active' } });

  // the captured PURCHASE published again as is (a replay by whoever holds cons-a's broker login):
  // a guard on the way (cons-a's relay or sn-a) drops the copy (counted as a duplicate, not logged
  // one by one: a flood's copies would flood the log); the same bytes under a fresh id and time, to
  // slip past that memory, no longer match cons-a's signature and are dropped and logged with the
  // reason. One contract.
  const purchase = captured.find((c) => c.topic.endsWith('/rear-purchase'));
  if (purchase === undefined) return t.fail('no PURCHASE captured');
  t.is(purchase.topic, `${TOPIC_ROOT}/cons-a/to/sn-a/rear-purchase`);
  const drops = (reason: string): number => [cons, sn].flatMap((m) => samples(m.controller.registry, 'edgeshifu_bus_messages_dropped_total')).filter((s) => s.labels.reason === reason).reduce((a, s) => a + s.value, 0);
  const [duplicate, forged] = [drops('duplicate'), drops('bad-signature')];
  await sniffer.publishAsync(purchase.topic, purchase.payload, { qos: 1 });
  await waitFor('the replayed PURCHASE dropped as a duplicate', () => (drops('duplicate') > duplicate ? true : undefined));
  const renamed = JSON.parse(purchase.payload.toString()) as { id: string; timestamp: number; kind: string };
  t.is(renamed.kind, 'rear-purchase');
  await sniffer.publishAsync(purchase.topic, JSON.stringify({ ...renamed, id: `${renamed.id}.again`, timestamp: Date.now() }), { qos: 1 });
  await waitFor('the re-dated PURCHASE dropped as not cons-a\'s signature', () => (drops('bad-signature') > forged ? true : undefined));
  const logged = [cons, sn].map((m) => m.controller.logs.join('')).join('').split('\n').find((l) => l.includes('dropped a message') && l.includes('rear-purchase'));
  t.regex(logged ?? '', /"reason":"bad-signature".*"detail":"[a-z]+ signature from cons-a/);
  t.deepEqual((await listed<ContractObject>(prov.kube, 'contracts')).map((c) => c.spec.contractID), [contractId], 'prov-b sold once');
  t.deepEqual((await listed<ContractObject>(cons.kube, 'contracts', APPS)).map((c) => c.spec.contractID), [contractId], 'cons-a holds one contract');

  // prov-b's Federation for cons-a hosts images under example.com/ only
  const web = carriedDeployment('web', APPS, { node, contractId });
  const container = web.spec?.template.spec?.containers[0];
  if (container !== undefined) container.image = 'example.com/web:1';
  await cons.kube.apps.createNamespacedDeployment({ namespace: APPS, body: web });
  const running = await waitFor('the consumer\'s pod Running on the virtual node', async () => {
    const list = await cons.kube.core.listNamespacedPod({ namespace: APPS, labelSelector: 'app=web' });
    return list.items.find((p) => p.spec?.nodeName === node && p.status?.phase === 'Running');
  }, { timeoutMs: 120_000 });
  const providerPods = async (): Promise<V1Pod[]> => (await prov.kube.core.listNamespacedPod({ namespace: 'rear-cons-a' }).catch(() => ({ items: [] as V1Pod[] }))).items;
  const [carried] = await providerPods();
  t.is(carried?.status?.phase, 'Running');
  t.is(carried?.metadata?.labels?.['rear.edgeshifu.io/consumer'], 'cons-a');
  t.is(running.status?.podIP, undefined, 'the provider pod\'s IP is not shown on the consumer (its Services reach it by NodePort)');

  // a captured rear-pod, published again as is with cons-a's broker login (a replay by whoever
  // holds it): a guard on the way (cons-a's relay or prov-b) drops the copy; prov-b runs one pod
  const copy = await waitFor('a rear-pod captured', () => captured.find((c) => c.topic.endsWith('/rear-pod')));
  const duplicates = (): number => [cons, prov].flatMap((m) => samples(m.controller.registry, 'edgeshifu_bus_messages_dropped_total')).filter((s) => s.labels.reason === 'duplicate').reduce((a, s) => a + s.value, 0);
  const before = duplicates();
  await sniffer.publishAsync(copy.topic, copy.payload, { qos: 1 });
  await waitFor('the replayed copy dropped', () => (duplicates() > before ? true : undefined));
  t.is((await providerPods()).length, 1, 'the replay made no second pod');

  // the contract's minute ends: the node is drained (both sides) and removed, the Allocation Released
  await waitFor('the virtual node drained and removed, the Allocation Released', async () => {
    const gone = await cons.kube.core.readNode({ name: node }).then(() => false, () => true);
    const [a] = await listed<AllocationObject>(cons.kube, 'allocations', APPS);
    return gone && a?.status?.phase === 'Released' ? true : undefined;
  }, { timeoutMs: 150_000 });
  await waitFor('the provider\'s pod gone', async () => ((await providerPods()).length === 0 ? true : undefined), { timeoutMs: 60_000 });
  // a contract that ran its time is a normal end, not a failure
  const ended = await waitFor('the Solver Ended', async () => { const s = await solverStatus(cons.kube, 'web'); return s?.phase === 'Ended' ? s : undefined; }, { timeoutMs: 30_000 });
  t.like(ended, { reason: 'ContractExpired', contractID: contractId, provider: 'prov-b' });
  t.regex(ended.message ?? '', new RegExp(`^contract ${contractId} reached its end at \\S+; its virtual node is removed$`));
  t.like(ended.conditions?.[0], { type: 'Ready', status: 'False', reason: 'ContractExpired' });
});
