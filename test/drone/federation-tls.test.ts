// Two members joined with what `edgeshifu federation join` made (run as the CLI runs, once per
// member, with one folder), over mqtts to a real broker (aedes and Debian's mosquitto): the relay
// of a reaches b's broker through b's certificate, and b checks a's signature with the key a's
// Federation names. A client trusting another federation's CA never connects; plain MQTT to an
// address off loopback is refused with the fix in the message.
import test, { type ExecutionContext } from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { EmbeddedBroker } from '../../shared/bus/broker.ts';
import { FederationRelay } from '../../shared/bus/relay.ts';
import { Keyring, privateKeyFrom } from '../../shared/bus/signing.ts';
import { broadcastTopic } from '../../shared/bus/topics.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { droneBusClient } from '../../controller/drone/bus.ts';
import { droneCodec, type DroneMessage } from '../../controller/drone/messages/index.ts';
import { keysOf, neighbourOf, type Federation } from '../../controller/drone/neighbours.ts';
import { plainListenRefusal } from '../../controller/offload/federation.ts';
import { runCli } from '../../cli/main.ts';
import { waitFor } from '../support/wait.ts';
import { freePort, startMosquitto } from './support/brokers.ts';

const codec = droneCodec();
const advert = { kind: 'slice-advert' as const, offered: { cpu: 1000, memory: 1024 }, seq: 1, ttlMs: 15_000 };

interface Obj { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: Record<string, unknown> }

async function join(dir: string, member: string, neighbour: string, port: number): Promise<Obj[]> {
  let out = '';
  let err = '';
  const code = await runCli(['federation', 'join', member, '--address', '127.0.0.1', '--neighbour', `${neighbour}=127.0.0.1:${String(port)}`, '--dir', dir],
    { env: {}, terminal: { out: (s) => { out += s; }, err: (s) => { err += s; } }, now: () => new Date() });
  if (code !== 0) throw new Error(`federation join ${member}: ${err}`);
  return parseAllDocuments(out).map((d) => d.toJS() as Obj);
}

const text = (o: Obj | undefined, key: string): string => Buffer.from(o?.data?.[key] ?? '', 'base64').toString('utf8');
const find = (objects: Obj[], kind: string, name: string): Obj => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (o === undefined) throw new Error(`no ${kind} ${name}`);
  return o;
};

async function folder(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(joinPath(tmpdir(), 'edgeshifu-fed-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return joinPath(dir, 'federation');
}

const brokers = [
  {
    name: 'aedes',
    start: async (t: ExecutionContext, b: Obj[], port: number): Promise<string> => {
      const tls = find(b, 'Secret', 'edgeshifu-drone-tls');
      const users = find(b, 'Secret', 'edgeshifu-drone-users');
      const broker = new EmbeddedBroker({
        owner: 'b', host: '127.0.0.1', port, tls: { cert: text(tls, 'tls.crt'), key: text(tls, 'tls.key') },
        users: [{ username: 'b', cluster: 'b', password: text(find(b, 'Secret', 'edgeshifu-drone'), 'password') }, { username: 'a', cluster: 'a', password: text(users, 'a') }],
      });
      t.teardown(() => broker.stop());
      return (await broker.start()).url;
    },
  },
  {
    name: 'Mosquitto',
    start: async (t: ExecutionContext, b: Obj[], port: number): Promise<string> => {
      const tls = find(b, 'Secret', 'edgeshifu-drone-tls');
      const m = await startMosquitto({
        owner: 'b', port, tls: { cert: text(tls, 'tls.crt'), key: text(tls, 'tls.key'), ca: text(tls, 'ca.crt') },
        users: [{ username: 'b', cluster: 'b', password: text(find(b, 'Secret', 'edgeshifu-drone'), 'password') }, { username: 'a', cluster: 'a', password: text(find(b, 'Secret', 'edgeshifu-drone-users'), 'a') }],
      });
      t.teardown(() => m.stop());
      return m.url;
    },
  },
];

for (const kind of brokers) {
  test(`${kind.name}: two members joined by \`edgeshifu federation join\` talk over mqtts, signed, a wrong CA or host name is refused`, async (t) => {
    const dir = await folder(t);
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await join(dir, 'a', 'b', portB);
    const b = await join(dir, 'b', 'a', portA);
    const bUrl = await kind.start(t, b, portB);
    t.regex(bUrl, /^mqtts:/);

    // b, the broker's owner, listens with the keyring its Federation for a gives it, signatures required.
    const bFed = find(b, 'Federation', 'a') as unknown as Federation;
    const bKeys = keysOf([bFed]);
    t.deepEqual(bKeys.errors, []);
    const caB = text(find(b, 'Secret', 'edgeshifu-drone-tls'), 'ca.crt');
    const bClient = droneBusClient({ url: bUrl, cluster: 'b', username: 'b', password: text(find(b, 'Secret', 'edgeshifu-drone'), 'password'), tls: { ca: caB }, keyring: new Keyring({ peers: bKeys.keys, require: true }) }, codec);
    t.teardown(() => bClient.stop());
    await bClient.start();
    const got: DroneMessage[] = [];
    await bClient.subscribe(['edgeshifu/v1/+/fed/#', 'edgeshifu/v1/+/relay/+/fed/#'], (m) => got.push(m));

    // a: its own broker on loopback (plain is allowed there), its relay to b from its Federation and Secret.
    const own = new EmbeddedBroker({ owner: 'a', host: '127.0.0.1', port: portA, users: [{ username: 'a', cluster: 'a', password: 'local-only' }] });
    t.teardown(() => own.stop());
    const { url: aUrl } = await own.start();
    const aFed = find(a, 'Federation', 'b') as unknown as Federation;
    t.is(aFed.spec.brokerUrl, `mqtts://127.0.0.1:${String(portB)}`);
    const neighbour = neighbourOf(aFed, find(a, 'Secret', 'federation-b').data);
    const relay = new FederationRelay<DroneMessage>({ cluster: 'a', local: { url: aUrl, username: 'a', password: 'local-only' }, neighbours: [neighbour] }, codec);
    t.teardown(() => relay.stop());
    await relay.start();
    await waitFor('a\'s relay linked to b over mqtts', () => (relay.linksUp() === 1 ? true : undefined), { timeoutMs: 10_000 });
    const signer = new Keyring({ privateKey: privateKeyFrom(text(find(a, 'Secret', 'edgeshifu-drone'), 'signing-key'), 'a\'s signing key') });
    const aClient = droneBusClient({ url: aUrl, cluster: 'a', username: 'a', password: 'local-only', keyring: signer }, codec);
    t.teardown(() => aClient.stop());
    await aClient.start();
    await aClient.publish(broadcastTopic('a', 'slice-advert'), advert);
    const heard = await waitFor('a\'s signed advert at b', () => got.find((m) => m.sender === 'a'), { timeoutMs: 10_000 });
    t.like(heard, { kind: 'slice-advert', hops: 1 });

    // Another federation's CA: the TLS handshake fails, nothing is sent.
    const other = await join(await folder(t), 'a', 'b', portB);
    const stranger = droneBusClient({ url: bUrl, cluster: 'a', username: 'a', password: text(find(b, 'Secret', 'edgeshifu-drone-users'), 'a'), tls: { ca: text(find(other, 'Secret', 'edgeshifu-drone-tls'), 'ca.crt') }, backoff: { initialMs: 50, maxMs: 200 } }, codec);
    t.teardown(() => stranger.stop());
    void stranger.start().catch(() => undefined);
    const error = await waitFor('a certificate error', () => stranger.lastError, { timeoutMs: 10_000 });
    t.regex(error, /certificate|self.signed|unable to verify/i);
    t.false(stranger.connected);

    // The right CA, but a host name the certificate does not list (it names 127.0.0.1): refused.
    const misnamed = droneBusClient({ url: bUrl.replace('127.0.0.1', 'localhost'), cluster: 'a', username: 'a', password: text(find(b, 'Secret', 'edgeshifu-drone-users'), 'a'), tls: { ca: caB }, backoff: { initialMs: 50, maxMs: 200 } }, codec);
    t.teardown(() => misnamed.stop());
    void misnamed.start().catch(() => undefined);
    t.regex(await waitFor('a host name error', () => misnamed.lastError, { timeoutMs: 10_000 }), /altnames|does not match/i);
    t.false(misnamed.connected);
  });
}

test('plain MQTT off loopback is refused with the fix in the message; loopback and an explicit insecure flag are accepted', (t) => {
  const plain = t.throws(() => droneBusClient({ url: 'mqtt://192.0.2.7:1883', cluster: 'a' }, codec));
  t.true(isEdgeshifuError(plain, 'invalid'));
  t.regex(plain.message, /mqtts:\/\/192\.0\.2\.7:8883.*edgeshifu federation/);
  t.notThrows(() => droneBusClient({ url: 'mqtt://127.0.0.1:1883', cluster: 'a' }, codec));
  t.notThrows(() => droneBusClient({ url: 'mqtt://[::1]:1883', cluster: 'a' }, codec));
  t.notThrows(() => droneBusClient({ url: 'mqtt://192.0.2.7:1883', cluster: 'a', allowInsecure: true }, codec));
  const federation = { apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'Federation', metadata: { name: 'b' }, spec: { clusterId: 'b', brokerUrl: 'mqtt://b.example:1883', credentialsSecretRef: { name: 'federation-b', namespace: 'edgeshifu-system' } } } as unknown as Federation;
  const secret = { username: Buffer.from('a').toString('base64'), password: Buffer.from('pw').toString('base64') };
  t.throws(() => neighbourOf(federation, secret), { message: /spec\.brokerUrl mqtt:\/\/b\.example:1883 is plain text.*mqtts.*spec\.insecure/ });
  t.like(neighbourOf({ ...federation, spec: { ...federation.spec, insecure: true } }, secret), { url: 'mqtt://b.example:1883', insecure: true });
  t.throws(() => { plainListenRefusal('0.0.0.0', false, false); }, { message: /--drone-tls-secret/ });
  t.notThrows(() => { plainListenRefusal('127.0.0.1', false, false); });
  t.notThrows(() => { plainListenRefusal('0.0.0.0', true, false); });
});

test('`federation join` derives the same logins on both sides and refuses a bad neighbour naming the option', async (t) => {
  const dir = await folder(t);
  const a = await join(dir, 'a', 'b', 8883);
  const b = await join(dir, 'b', 'a', 8883);
  // what a logs in with on b is what b's broker expects from a, and the reverse
  t.is(text(find(a, 'Secret', 'federation-b'), 'password'), text(find(b, 'Secret', 'edgeshifu-drone-users'), 'a'));
  t.is(text(find(b, 'Secret', 'federation-a'), 'password'), text(find(a, 'Secret', 'edgeshifu-drone-users'), 'b'));
  t.is(text(find(a, 'Secret', 'federation-b'), 'username'), 'a');
  t.not(text(find(a, 'Secret', 'federation-b'), 'password'), text(find(b, 'Secret', 'federation-a'), 'password'));
  t.is(find(a, 'Secret', 'edgeshifu-drone-tls').data?.['ca.crt'], find(b, 'Secret', 'edgeshifu-drone-tls').data?.['ca.crt']);
  let err = '';
  const code = await runCli(['federation', 'join', 'a', '--address', 'x', '--neighbour', 'B=host', '--dir', dir], { env: {}, terminal: { out: () => undefined, err: (s) => { err += s; } }, now: () => new Date() });
  t.is(code, 1);
  t.regex(err, /--neighbour "B=host" must be <cluster id>=<host>\[:port\]/);
});
