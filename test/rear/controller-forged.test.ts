// Forged REAR messages at a real seller's broker: with sn-a's broker login (a member's password is
// not its key), an unsigned RESERVE and one signed with a key that is not sn-a's, both naming
// cons-a as the buyer, are dropped by prov-b's controller before REAR sees them: nothing reserved.
import test from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import { BusClient } from '../../shared/bus/client.ts';
import { Keyring } from '../../shared/bus/signing.ts';
import { directTopic } from '../../shared/bus/topics.ts';
import { rearCodec, type RearMessage } from '../../controller/rear/messages/index.ts';
import { samples } from '../support/metric-samples.ts';
import { waitFor } from '../support/wait.ts';
import { rearFederation, rearOf } from './controllers.ts';

test('forged RESERVE messages are dropped by the seller\'s controller; nothing is reserved', async (t) => {
  const { sn, prov } = await rearFederation(t);
  const market = rearOf(prov).market;
  const flavour = market?.flavours()[0];
  if (market === undefined || flavour === undefined) throw new Error('nothing on sale');
  const dropped = (): number => samples(prov.controller.registry, 'edgeshifu_bus_messages_dropped_total').filter((s) => s.labels.reason === 'bad-signature').reduce((a, s) => a + s.value, 0);
  const before = dropped();
  const body = { kind: 'rear-reserve' as const, to: 'prov-b', requestId: 'forged-1', path: ['cons-a', 'sn-a'], seller: 'prov-b', sellerDomain: 'domain-b', flavourId: flavour.id, buyer: 'cons-a' };
  const forgers = [new Keyring({ peers: new Map(), require: false }), new Keyring({ privateKey: generateKeyPairSync('ed25519').privateKey, peers: new Map(), require: false })];
  for (const keyring of forgers) {
    const bus = new BusClient<RearMessage>({ url: `mqtt://127.0.0.1:${prov.port}`, cluster: 'sn-a', username: 'sn-a', password: sn.password, keyring }, rearCodec());
    await bus.start();
    t.teardown(() => bus.stop());
    await bus.publish(directTopic('sn-a', 'prov-b', 'rear-reserve'), body);
  }
  await waitFor('prov-b to drop both forgeries', () => (dropped() >= before + 2 ? true : undefined));
  t.deepEqual(market.current().transactions, [], 'nothing reserved');
  t.is(market.flavours()[0]?.id, flavour.id, 'the flavour is whole');
});
