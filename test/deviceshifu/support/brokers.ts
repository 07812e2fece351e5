// Real MQTT brokers for tests: aedes in this process, and Debian's mosquitto as a child process,
// both on 127.0.0.1, both restartable on the same port (to prove reconnects).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import { createServer as createTlsServer } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { Aedes } from 'aedes';
import { freePort } from '../../support/controlplane/ports.ts';
import { waitFor } from '../../support/wait.ts';

export interface TestBroker {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export interface BrokerAuth {
  readonly username: string;
  readonly password: string;
}

export interface BrokerTls {
  readonly certFile: string;
  readonly keyFile: string;
}

export async function aedesBroker(t: ExecutionContext, options: { port?: number; auth?: BrokerAuth; tls?: BrokerTls } = {}): Promise<TestBroker> {
  const port = options.port ?? await freePort();
  let server: Server | undefined;
  let broker: Aedes | undefined;
  const sockets = new Set<Socket>();
  const start = async (): Promise<void> => {
    const auth = options.auth;
    broker = await Aedes.createBroker(auth === undefined ? {} : {
      authenticate: (_client, username, password, done) => { done(null, username === auth.username && password?.toString() === auth.password); },
    });
    const b = broker;
    const onSocket = (socket: Socket): void => { sockets.add(socket); socket.once('close', () => sockets.delete(socket)); b.handle(socket); };
    server = options.tls === undefined ? createServer(onSocket)
      : createTlsServer({ cert: await readFile(options.tls.certFile), key: await readFile(options.tls.keyFile) }, onSocket);
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', resolve);
    });
  };
  const stop = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => { if (server === undefined) resolve(); else server.close(() => { resolve(); }); });
    await new Promise<void>((resolve) => { if (broker === undefined) resolve(); else broker.close(() => { resolve(); }); });
    server = undefined;
    broker = undefined;
  };
  await start();
  t.teardown(stop);
  return { port, url: `${options.tls === undefined ? 'mqtt' : 'mqtts'}://127.0.0.1:${port}`, start, stop };
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => { resolve(false); });
  });
}

/** Debian's mosquitto (apt-get install mosquitto) on 127.0.0.1, anonymous, no persistence. */
export async function mosquittoBroker(t: ExecutionContext): Promise<TestBroker> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'mosquitto-'));
  const conf = join(dir, 'mosquitto.conf');
  await writeFile(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n`);
  let child: ChildProcess | undefined;
  let exited: string | undefined;
  const start = async (): Promise<void> => {
    exited = undefined;
    const proc = spawn('mosquitto', ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    proc.once('error', (err) => { exited = `mosquitto failed to start: ${err.message} (apt-get install mosquitto)`; });
    proc.once('exit', (code) => { exited ??= `mosquitto exited with ${code ?? 'a signal'}`; });
    child = proc;
    await waitFor(`mosquitto on port ${port}`, async () => ((await portOpen(port)) ? true : undefined), { timeoutMs: 10_000, abortIf: () => exited });
  };
  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => proc.once('exit', () => { resolve(); }));
    proc.kill('SIGTERM');
    await gone;
  };
  await start();
  t.teardown(async () => { await stop(); await rm(dir, { recursive: true, force: true }); });
  return { port, url: `mqtt://127.0.0.1:${port}`, start, stop };
}
