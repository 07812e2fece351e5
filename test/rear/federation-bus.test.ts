// REAR over the signed federation bus on a real broker (aedes on 127.0.0.1): a consumer in domain
// a discovers, reserves and buys a flavour of a provider in domain b through both supernodes;
// the race for the last flavour; a supernode restarting mid-discovery; forged and replayed
// messages refused.
import test from 'ava';
import mqtt from 'mqtt';
import { BusClient } from '../../shared/bus/client.ts';
import { directTopic } from '../../shared/bus/topics.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { verifyContract } from '../../controller/rear/contract-signing.ts';
import type { RearMessage } from '../../controller/rear/messages/index.ts';
import { samples } from '../support/metric-samples.ts';
import { waitFor } from '../support/wait.ts';
import { password } from '../drone/support/brokers.ts';
import { keyringFor } from '../drone/support/keys.ts';
import { r } from './fixtures.ts';
import { codec, dropped, federation, get, join, TRUSTED } from './support.ts';

test('discovery, reservation and purchase across two domains through both supernodes; the contract is signed by both sides', async (t) => {
  const { c } = await federation(t);
  const [cons, snA, prov] = [get(c, 'cons-1'), get(c, 'sn-a'), get(c, 'prov-1')];
  const found = await cons.node.discover({ architecture: 'amd64', bounds: { cpu: { min: 1000 } } });
  t.is(found.length, 1);
  const flavour = found[0];
  if (flavour === undefined) return;
  t.like(flavour, { owner: { cluster: 'prov-1', domain: 'domain-b' }, characteristics: { cpu: 4000 } });
  t.is(snA.node.candidates().get(flavour.id)?.flavour.id, flavour.id, 'the supernode cached the peering candidate');
  t.deepEqual(await cons.node.discover({ architecture: 'arm64' }), []);

  const transaction = await cons.node.reserve(flavour, { partition: r(1000, 1024, 2) });
  t.like(transaction, { flavourId: flavour.id, buyer: 'cons-1', resources: r(1000, 1024, 2) });
  t.not(prov.market?.flavours()[0]?.id, flavour.id, 'the flavour shrank on the provider');
  t.is(prov.market?.flavours()[0]?.characteristics.cpu, 3000);
  t.false(snA.node.candidates().has(flavour.id), 'the supernode forgot the flavour reserved through it: its id is gone');
  const [rest] = await cons.node.discover({ architecture: 'amd64', bounds: { cpu: { min: 1000 } } });
  t.like(rest, { id: prov.market?.flavours()[0]?.id, characteristics: { cpu: 3000 } }, 'the next discovery finds what is left, not the stale flavour');

  const signed = await cons.node.purchase(flavour, transaction.transactionId, 3_600_000);
  t.like(signed.contract, { buyer: 'cons-1', seller: { cluster: 'prov-1' }, resources: r(1000, 1024, 2), peering: { namespace: 'rear-cons-1' } });
  t.truthy(signed.signatures.buyer);
  t.true(verifyContract(keyringFor('prov-1', TRUSTED, true), signed, 'prov-1'), 'the seller verifies both signatures');
  t.is(prov.market?.current().contracts.length, 1);
});

test('two consumers race through the supernodes for the last flavour: exactly one wins, the other is told it is gone', async (t) => {
  const { c } = await federation(t);
  const [flavour] = await get(c, 'cons-1').node.discover({});
  if (flavour === undefined) return t.fail();
  const results = await Promise.allSettled([get(c, 'cons-1').node.reserve(flavour), get(c, 'cons-2').node.reserve(flavour)]);
  t.deepEqual(results.map((x) => x.status).sort(), ['fulfilled', 'rejected']);
  const refused = results.find((x) => x.status === 'rejected');
  t.true(isEdgeshifuError(refused?.reason, 'not-found'));
  t.regex((refused?.reason as Error).message, /not on sale any more/);
  t.is(get(c, 'prov-1').market?.current().transactions.length, 1);
});

test('a supernode restarting mid-discovery: the consumer asks again with the same request and gets its answer', async (t) => {
  const { url, c } = await federation(t);
  await get(c, 'sn-a').bus.stop();
  const pending = get(c, 'cons-1').node.discover({});
  // the first try is lost while sn-a is down; sn-a comes back as a new process with an empty cache
  await waitFor('a request lost', () => (samples(get(c, 'cons-1').registry, 'edgeshifu_bus_messages_published_total').find((s) => s.labels.kind === 'rear-list-flavours')?.value ?? 0) >= 1 || undefined);
  await join(t, url, 'sn-a');
  const found = await pending;
  t.is(found.length, 1);
  t.true((samples(get(c, 'cons-1').registry, 'edgeshifu_bus_messages_published_total').find((s) => s.labels.kind === 'rear-list-flavours')?.value ?? 0) >= 2, 'sent again');
});

test('forged, unsigned and replayed messages are refused before they reach REAR', async (t) => {
  const { url, c } = await federation(t);
  const prov = get(c, 'prov-1');
  const [flavour] = await get(c, 'cons-1').node.discover({});
  if (flavour === undefined) return t.fail();
  const reserve = { kind: 'rear-reserve' as const, to: 'prov-1', requestId: 'forged-1', path: ['mallory'], seller: 'prov-1', sellerDomain: 'domain-b', flavourId: flavour.id, buyer: 'mallory' };
  // mallory, a login on the broker but no member of the federation: signed with a key nobody knows
  const mallory = new BusClient<RearMessage>({ url, cluster: 'mallory', username: 'mallory', password: password('mallory'), keyring: keyringFor('mallory', [], true) }, codec);
  await mallory.start();
  t.teardown(() => mallory.stop());
  await mallory.publish(directTopic('mallory', 'prov-1', 'rear-reserve'), reserve);
  await waitFor('mallory refused', () => dropped(prov, 'bad-signature') >= 1 || undefined);
  // a stolen login without the key: an unsigned message, then one with someone else's signature
  const thief = new BusClient<RearMessage>({ url, cluster: 'sn-b', username: 'sn-b', password: password('sn-b') }, codec);
  await thief.start();
  t.teardown(() => thief.stop());
  const unsigned = { ...reserve, path: ['cons-1', 'sn-a', 'sn-b'], buyer: 'cons-1', v: 1 as const, id: 'sn-b.forged-0001', sender: 'sn-b', timestamp: Date.now(), hops: 0 };
  await thief.publishMessage(directTopic('sn-b', 'prov-1', 'rear-reserve'), unsigned);
  await waitFor('unsigned refused', () => dropped(prov, 'bad-signature') >= 2 || undefined);
  const bytes = codec.encode({ ...unsigned, id: 'sn-b.forged-0002' }, (b) => keyringFor('mallory', [], true).sign(b));
  await thief.publishPayload(directTopic('sn-b', 'prov-1', 'rear-reserve'), bytes, 'rear-reserve');
  await waitFor('wrong signature refused', () => dropped(prov, 'bad-signature') >= 3 || undefined);
  // a real, signed reservation replayed byte for byte, and one signed by sn-b's key but 10 minutes old
  const captured: Buffer[] = [];
  const spy = await mqtt.connectAsync(url, { username: 'owner', password: password('owner') });
  t.teardown(() => spy.endAsync(true));
  await spy.subscribeAsync(directTopic('sn-b', 'prov-1', 'rear-reserve'));
  spy.on('message', (_topic, payload) => { captured.push(payload); });
  await get(c, 'cons-1').node.reserve(flavour);
  const real = await waitFor('the real request seen', () => captured[0]);
  await thief.publishPayload(directTopic('sn-b', 'prov-1', 'rear-reserve'), real, 'rear-reserve');
  await waitFor('replay refused', () => dropped(prov, 'duplicate') >= 1 || undefined);
  const old = codec.encode({ ...unsigned, id: 'sn-b.stale-0001', timestamp: Date.now() - 600_000 }, (b) => keyringFor('sn-b', [], true).sign(b));
  await thief.publishPayload(directTopic('sn-b', 'prov-1', 'rear-reserve'), old, 'rear-reserve');
  await waitFor('stale refused', () => dropped(prov, 'stale') >= 1 || undefined);
  t.deepEqual(prov.market?.current().transactions.map((x) => x.buyer), ['cons-1'], 'only the real reservation was made');
});
