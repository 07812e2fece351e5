import test, { type ExecutionContext } from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import mqtt from 'mqtt';
import { Registry } from '../../shared/prometheus.ts';
import { samples } from '../support/metric-samples.ts';
import { frameOf, withHops } from '../../shared/bus/codec.ts';
import { busMetrics } from '../../shared/bus/metrics.ts';
import { Keyring, privateKeyFrom, publicKeyFrom, publicKeyPem } from '../../shared/bus/signing.ts';
import { broadcastTopic } from '../../shared/bus/topics.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { droneKeyring } from '../../controller/drone/config.ts';
import { droneBusClient } from '../../controller/drone/bus.ts';
import { droneCodec, type DroneMessage } from '../../controller/drone/messages/index.ts';
import { keysOf, type Federation } from '../../controller/drone/neighbours.ts';
import { waitFor } from '../support/wait.ts';
import { password, startMosquitto, user } from './support/brokers.ts';
import { clusterKey, keyringFor, publicKeys } from './support/keys.ts';
import { outcomeOf, startFederation, type Cleanup } from './support/federation.ts';
import { component, job } from './support/jobs.ts';

const codec = droneCodec();
const advert = { kind: 'slice-advert' as const, offered: { cpu: 1000, memory: 1024 }, seq: 7, ttlMs: 15_000 };

function message(sender: string, id: string, hops = 0): DroneMessage {
  return { ...advert, v: 1, id, sender, timestamp: 1_700_000_000_000, hops };
}

test('a signed message keeps a valid signature when a relay raises hops; any other change breaks it', (t) => {
  const a = keyringFor('a', [], false);
  const c = new Keyring({ peers: publicKeys(['a']) });
  const payload = codec.encode(message('a', 'a.00000001'), (bytes) => a.sign(bytes));
  const relayed = withHops(withHops(payload, 1) ?? Buffer.alloc(0), 2) ?? Buffer.alloc(0);
  t.true(relayed.toString().startsWith('{"hops":2,"sig":"'));
  const frame = frameOf(relayed);
  t.is(frame?.hops, 2);
  t.is(c.verify('a', frame?.signed, frame?.sig), 'valid');
  t.like(codec.decode(relayed), { ok: true, message: { sender: 'a', hops: 2, seq: 7 } });
  // The same bytes claimed by another sender, or with one field changed, do not verify.
  t.is(new Keyring({ peers: new Map([['a', publicKeys(['b']).get('b')!]]) }).verify('a', frame?.signed, frame?.sig), 'invalid');
  const tampered = Buffer.from(relayed.toString().replace('"seq":7', '"seq":8'));
  const f2 = frameOf(tampered);
  t.is(c.verify('a', f2?.signed, f2?.sig), 'invalid');
  t.is(c.verify('a', frameOf(codec.encode(message('a', 'a.00000002')))?.signed, undefined), 'unsigned');
  t.is(c.verify('z', frame?.signed, frame?.sig), 'unknown-key');
});

test('the keyring accepts by its policy: a wrong signature never, an unsigned or unknown one only when signatures are not required', (t) => {
  const lax = new Keyring({});
  const strict = new Keyring({ require: true });
  t.false(lax.accepts('invalid'));
  t.true(lax.accepts('unsigned'));
  t.true(lax.accepts('unknown-key'));
  t.false(strict.accepts('unsigned'));
  t.false(strict.accepts('unknown-key'));
  t.true(strict.accepts('valid'));
});

test('keys that are not Ed25519 or not PEM are refused naming what to fix, without echoing the key', (t) => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const rsaPem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const e1 = t.throws(() => privateKeyFrom(rsaPem, 'droneSigningKey'));
  t.true(isEdgeshifuError(e1, 'invalid'));
  t.regex(e1.message, /droneSigningKey is a rsa key; use an Ed25519 key/);
  const secret = '-----BEGIN PRIVATE KEY-----\nnot-a-key-but-secret-material\n-----END PRIVATE KEY-----';
  const e2 = t.throws(() => privateKeyFrom(secret, 'droneSigningKey'));
  t.regex(e2.message, /droneSigningKey is not a PEM private key/);
  t.false(e2.message.includes('secret-material'));
  t.throws(() => publicKeyFrom('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', 'spec.publicKey'), { message: /spec.publicKey is not a PEM public key/ });
});

function federation(name: string, clusterId: string, publicKey?: string): Federation {
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'Federation', metadata: { name },
    spec: { clusterId, brokerUrl: 'mqtt://127.0.0.1:1883', credentialsSecretRef: { name: 'x', namespace: 'y' }, ...(publicKey === undefined ? {} : { publicKey }) },
  };
}

test('Federation public keys become the keyring\'s peers, a bad one is reported by name; requiring signatures without a key of its own is refused', (t) => {
  const pem = publicKeyPem(clusterKey('b'));
  const { keys, errors } = keysOf([federation('to-b', 'b', pem), federation('to-c', 'c'), federation('to-d', 'd', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----')]);
  t.deepEqual([...keys.keys()], ['b']);
  t.is(errors.length, 1);
  t.regex(errors[0]?.message ?? '', /Federation to-d: spec.publicKey is not a PEM public key/);
  const own = clusterKey('a').export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyring = droneKeyring({ droneSigningKey: own, droneRequireSignatures: true }, keys);
  t.true(keyring?.signs);
  t.true(keyring?.require);
  t.is(droneKeyring({ droneRequireSignatures: false }, new Map()), undefined);
  const err = t.throws(() => droneKeyring({ droneRequireSignatures: true }, keys));
  t.regex(err.message, /droneRequireSignatures needs droneSigningKey/);
});

function cleanup(t: ExecutionContext): Cleanup {
  return (fn) => { t.teardown(async () => { await fn(); }); };
}

const small = { cpu: 200, memory: 256 };
const big = { cpu: 8000, memory: 16384 };
const ids = ['a', 'b', 'c'];

for (const broker of ['aedes', 'Mosquitto'] as const) {
  test(`with signatures required (c on ${broker}), a job crosses two relay hops, and forged relayed messages are dropped and counted`, async (t) => {
    let url: string | undefined;
    if (broker === 'Mosquitto') {
      const m = await startMosquitto({ owner: 'c', users: ids.map(user) });
      t.teardown(() => m.stop());
      url = m.url;
    }
    const registry = new Registry();
    const metrics = busMetrics(registry);
    const clusters = await startFederation({
      ids, edges: [['a', 'b'], ['b', 'c']], free: (id) => (id === 'c' ? big : id === 'a' ? small : { cpu: 0, memory: 0 }),
      brokerUrl: (id) => (id === 'c' ? url : undefined),
      bus: (id) => ({ keyring: keyringFor(id, ids, true), ...(id === 'c' ? { metrics } : {}) }),
    }, cleanup(t));
    const [a, c] = [clusters.get('a')!, clusters.get('c')!];
    await waitFor('the adverts of a and c', () => (JSON.stringify(a.agent.providers()) === '["c"]' && JSON.stringify(c.agent.providers()) === '["a"]' ? true : undefined), { timeoutMs: 20_000 });
    a.agent.submit(job('web', 'a', [component('front', 1000, 256), component('db', 1500, 1024)]));
    const outcome = await waitFor('the outcome of web', () => outcomeOf(a, 'web'), { timeoutMs: 20_000 });
    t.like(outcome, { type: 'placed', placement: { front: 'c', db: 'c' } });

    // Someone with b's login (a compromised relay) speaks for a on c's broker.
    const accepted: DroneMessage[] = [];
    await c.client.subscribe(['edgeshifu/v1/+/relay/+/fed/#'], (m) => { if (m.id.startsWith('forged')) accepted.push(m); });
    const control = droneBusClient({ url: c.url, cluster: 'c', username: 'c', password: password('c') }, codec);
    t.teardown(() => control.stop());
    await control.start();
    const arrived: string[] = [];
    await control.subscribe(['edgeshifu/v1/b/relay/a/fed/#'], (m) => arrived.push(m.id));
    const forger = await mqtt.connectAsync(c.url, { username: 'b', password: password('b') });
    t.teardown(() => forger.endAsync(true));
    const topic = broadcastTopic('b', 'slice-advert').replace('/b/fed/', '/b/relay/a/fed/');
    const bSigns = keyringFor('b', [], false);
    const aSigns = keyringFor('a', [], false);
    const forged = [
      codec.encode(message('a', 'forged-unsigned-1', 1)),
      codec.encode(message('a', 'forged-by-b-00001', 1), (bytes) => bSigns.sign(bytes)),
      Buffer.from(codec.encode(message('a', 'forged-altered-01', 1), (bytes) => aSigns.sign(bytes)).toString().replace('"cpu":1000', '"cpu":9999')),
    ];
    for (const payload of forged) await forger.publishAsync(topic, payload, { qos: 1 });
    const dropped = await waitFor('three bad signatures counted at c', () => {
      const values = samples(registry, 'edgeshifu_bus_messages_dropped_total');
      const bad = values.find((v) => v.labels.reason === 'bad-signature')?.value ?? 0;
      return bad >= 3 ? bad : undefined;
    }, { timeoutMs: 10_000 });
    t.is(dropped, 3);
    // The forged messages did reach c's broker, well formed: only the signature check stopped them.
    await waitFor('the forged messages at a client without keys', () => (arrived.length === 3 ? true : undefined), { timeoutMs: 10_000 });
    t.deepEqual(accepted, []);
    t.deepEqual(c.agent.providers(), ['a']);
  });
}
