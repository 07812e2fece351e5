// A flavour reserved by a buyer behind one supernode leaves every supernode's cache, on real
// control planes and brokers (three domains: cons-a behind sn-a, prov-b the seller and supernode
// of domain-b, cons-c behind sn-c): prov-b tells the supernodes it knows (rear-flavour-gone), so
// a buyer behind sn-c, whose supernode cached the flavour before, reserves what is on sale now and
// is never refused. Forged notices (unsigned, or signed with a key that is not prov-b's) and a
// replayed genuine one are dropped before REAR sees them: nothing is forgotten by them.
import test from 'ava';
import mqtt from 'mqtt';
import { generateKeyPairSync } from 'node:crypto';
import { BusClient } from '../../shared/bus/client.ts';
import { Keyring } from '../../shared/bus/signing.ts';
import { directTopic, TOPIC_ROOT } from '../../shared/bus/topics.ts';
import { rearCodec, type RearMessage } from '../../controller/rear/messages/index.ts';
import { samples } from '../support/metric-samples.ts';
import { waitFor } from '../support/wait.ts';
import { APPS, type Member } from '../offload/support.ts';
import { createSolver, listed, rearOf, rearThreeDomains, solverStatus } from './controllers.ts';

interface ReservationObject { metadata?: { name?: string }; status?: { phase?: string; message?: string } }

const drops = (members: readonly Member[], reason: string): number => members.flatMap((m) => samples(m.controller.registry, 'edgeshifu_bus_messages_dropped_total')).filter((s) => s.labels.reason === reason).reduce((a, s) => a + s.value, 0);

test('a flavour reserved through sn-a is forgotten by sn-c too: the buyer behind sn-c is not refused; forged and replayed notices are dropped', async (t) => {
  const { cons, sn, prov, snC, consC } = await rearThreeDomains(t);
  const cached = (m: Member, id: string): boolean => rearOf(m).node?.candidates().has(id) ?? false;
  const captured: Array<{ topic: string; payload: Buffer }> = [];
  const sniffer = await mqtt.connectAsync(`mqtt://127.0.0.1:${prov.port}`, { username: 'prov-b', password: prov.password, reconnectPeriod: 0 });
  t.teardown(() => sniffer.endAsync());
  sniffer.on('message', (topic, payload) => { captured.push({ topic, payload }); });
  await sniffer.subscribeAsync(`${TOPIC_ROOT}/prov-b/to/+/rear-flavour-gone`, { qos: 1 });

  // cons-c discovers through sn-c (not through a Solver: its own candidates stay empty), so sn-c caches prov-b's flavour
  const selector = { bounds: { cpu: { min: 2000 } } };
  const [first] = await waitFor('cons-c to find prov-b\'s flavour', async () => { const f = await rearOf(consC).node?.discover(selector); return f !== undefined && f.length > 0 ? f : undefined; }, { timeoutMs: 60_000 });
  if (first === undefined) throw new Error('nothing found');
  t.is(first.owner.cluster, 'prov-b');
  t.true(cached(snC, first.id), 'sn-c caches it');

  // forged notices for it at sn-c's broker, with prov-b's broker login: dropped, nothing forgotten
  const before = drops([snC], 'bad-signature');
  const body = { kind: 'rear-flavour-gone' as const, to: 'sn-c', noticeId: 'forged-1', seller: 'prov-b', flavourIds: [first.id], path: ['prov-b'] };
  for (const keyring of [new Keyring({ peers: new Map(), require: false }), new Keyring({ privateKey: generateKeyPairSync('ed25519').privateKey, peers: new Map(), require: false })]) {
    const bus = new BusClient<RearMessage>({ url: `mqtt://127.0.0.1:${snC.port}`, cluster: 'prov-b', username: 'prov-b', password: prov.password, keyring }, rearCodec());
    await bus.start();
    t.teardown(() => bus.stop());
    await bus.publish(directTopic('prov-b', 'sn-c', 'rear-flavour-gone'), body);
  }
  await waitFor('sn-c to drop both forgeries', () => (drops([snC], 'bad-signature') >= before + 2 ? true : undefined));
  t.true(cached(snC, first.id), 'a forged notice forgets nothing');

  // cons-a buys it through sn-a: the flavour's id leaves sale, and prov-b tells sn-a and sn-c
  await createSolver(cons.kube, 'first', { resources: { cpu: '2', memory: '2Gi', pods: 2 }, durationSeconds: 600, remoteOnly: true });
  const bought = await waitFor('cons-a\'s Solver to hold a contract', async () => { const s = await solverStatus(cons.kube, 'first'); return s?.phase === 'Peering' || s?.phase === 'Solved' ? s : undefined; }, { timeoutMs: 120_000 });
  t.is(bought.flavorID, first.id);
  t.not(rearOf(prov).market?.flavours()[0]?.id, first.id, 'what is left is on sale under a new id');
  await waitFor('sn-c to forget the flavour', () => (cached(snC, first.id) ? undefined : true));
  t.false(cached(sn, first.id));
  const told = await waitFor('the notices captured', () => { const to = captured.map((c) => c.topic.split('/').at(-2)).sort(); return to.includes('sn-a') && to.includes('sn-c') ? captured : undefined; });
  const notice = JSON.parse(told.find((c) => c.topic.endsWith('/to/sn-c/rear-flavour-gone'))?.payload.toString() ?? '{}') as { flavourIds?: string[]; seller?: string; path?: string[] };
  t.like(notice, { seller: 'prov-b', path: ['prov-b'] });
  t.true(notice.flavourIds?.includes(first.id));

  // the genuine notice published again as is: dropped as a duplicate on the way
  const duplicates = drops([prov, sn, snC], 'duplicate');
  const copy = told.find((c) => c.topic.endsWith('/to/sn-c/rear-flavour-gone'));
  if (copy === undefined) return t.fail('no notice to sn-c captured');
  await sniffer.publishAsync(copy.topic, copy.payload, { qos: 1 });
  await waitFor('the replayed notice dropped', () => (drops([prov, sn, snC], 'duplicate') > duplicates ? true : undefined));

  // the buyer behind sn-c: its discovery through sn-c finds what is on sale now, and its one reservation is bought
  await createSolver(consC.kube, 'second', { resources: { cpu: '2', memory: '2Gi', pods: 2 }, durationSeconds: 600, remoteOnly: true });
  const second = await waitFor('cons-c\'s Solver to hold a contract', async () => { const s = await solverStatus(consC.kube, 'second'); return s?.phase === 'Peering' || s?.phase === 'Solved' || s?.phase === 'Failed' ? s : undefined; }, { timeoutMs: 120_000 });
  t.like(second, { provider: 'prov-b', attempts: 1 });
  t.not(second.phase, 'Failed', second.message);
  t.not(second.flavorID, first.id);
  const reservations = await listed<ReservationObject>(consC.kube, 'reservations', APPS);
  t.deepEqual(reservations.map((r) => `${r.metadata?.name ?? ''}:${r.status?.phase ?? ''}`), ['second-1:Purchased'], 'one reservation, never refused');
});
