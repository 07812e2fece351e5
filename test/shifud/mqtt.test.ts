// shifud publishes its node samples on MQTT, retained, per node; a mosquitto client (the outside
// peer) reads them from an aedes broker. Without a broker shifud works on; when the broker comes
// back, publishing resumes; the broker password never reaches the log.
import test from 'ava';
import { execFile } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { Aedes } from 'aedes';
import { createLogger } from '../../shared/log.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { fastConfig, readEdgeNode, startShifud } from './harness.ts';

interface Broker { readonly port: number; close(): Promise<void> }

/** aedes on 127.0.0.1 (port 0 unless given), optionally requiring a user name and password. */
async function startBroker(port = 0, credentials?: { username: string; password: string }): Promise<Broker> {
  const aedes = await Aedes.createBroker({
    authenticate: (_client, username, password, done) => {
      const ok = credentials === undefined || (username === credentials.username && password?.toString() === credentials.password);
      done(null, ok);
    },
  });
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });
  await new Promise<void>((resolve) => { server.listen(port, '127.0.0.1', resolve); });
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => { aedes.close(() => { server.close(() => { resolve(); }); }); });
    },
  };
}

/** One retained message read by mosquitto_sub, the outside peer. */
async function mosquittoSub(port: number, topic: string, auth: readonly string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('mosquitto_sub', ['-h', '127.0.0.1', '-p', String(port), '-t', topic, '-C', '1', '-W', '10', ...auth], (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`mosquitto_sub: ${stderr || error.message}`));
      else resolve(stdout.trim());
    });
  });
}

test('shifud publishes its sample retained on its node topic, with credentials that never reach the log', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const credentials = { username: 'shifud', password: 's3cret-broker-pw' };
  const broker = await startBroker(0, credentials);
  t.teardown(() => broker.close());
  const lines: string[] = [];
  const logger = createLogger('shifud', { level: 'debug', destination: new Writable({ write(chunk: Buffer, _e, done) { lines.push(chunk.toString()); done(); } }) });
  const node = uniqueName('shifud-mqtt');
  const shifud = await startShifud(t, kube, fastConfig(node, {
    deviceNamespace: namespace, mqttUrl: `mqtt://127.0.0.1:${broker.port}`, mqttUsername: credentials.username, mqttPassword: credentials.password,
  }), { logger });

  await waitFor('a published sample', () => (shifud.publisher?.stats.published ?? 0) > 0 ? true : undefined);
  const auth = ['-u', credentials.username, '-P', credentials.password];
  const sample = JSON.parse(await mosquittoSub(broker.port, `edgeshifu/v1/nodes/${node}/resources`, auth)) as { cpu: { cores: number }; memory: { totalBytes: number }; interfaces: unknown[] };
  t.true(sample.cpu.cores > 0);
  t.true(sample.memory.totalBytes > 0);
  t.true(Array.isArray(sample.interfaces));
  t.is(await mosquittoSub(broker.port, `edgeshifu/v1/nodes/${node}/online`, auth), 'true');
  t.true(lines.some((l) => l.includes('connected to MQTT broker')), 'the log is captured');
  t.false(lines.some((l) => l.includes(credentials.password)), 'the password is not in the log');
});

test('shifud works without a broker and publishes again once a broker is back', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  // a port nobody listens on yet
  const reserved = await startBroker();
  const port = reserved.port;
  await reserved.close();
  const node = uniqueName('shifud-nobroker');
  const shifud = await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace, mqttUrl: `mqtt://127.0.0.1:${port}` }));
  const topic = `edgeshifu/v1/nodes/${node}/resources`;

  await waitFor('the EdgeNode, broker or not', async () => (await readEdgeNode(kube, node))?.status?.capacity !== undefined ? true : undefined);
  await waitFor('samples dropped, not queued', () => (shifud.publisher?.stats.dropped ?? 0) > 2 ? true : undefined);

  const broker = await startBroker(port);
  t.teardown(() => broker.close());
  t.truthy(JSON.parse(await waitFor('a sample on the new broker', () => mosquittoSub(port, topic), { timeoutMs: 30_000 })));

  // the broker goes away and a fresh one (no retained state) takes its place
  await broker.close();
  const droppedBefore = shifud.publisher?.stats.dropped ?? 0;
  await waitFor('samples dropped while the broker is away', () => (shifud.publisher?.stats.dropped ?? 0) > droppedBefore ? true : undefined);
  const again = await startBroker(port);
  t.teardown(() => again.close());
  t.truthy(JSON.parse(await waitFor('a sample after the broker came back', () => mosquittoSub(port, topic), { timeoutMs: 30_000 })));
  t.true((shifud.publisher?.stats.connects ?? 0) >= 2, 'reconnected');
});
