// Real brokers for DRONE bus tests: aedes in-process and Debian's mosquitto as a child process,
// both on 127.0.0.1; credentials per cluster; cleanup registered by the caller.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedBroker, type BrokerUser, type EmbeddedBrokerOptions } from '../../../shared/bus/broker.ts';
import { mosquittoAcl } from '../../../shared/bus/mosquitto.ts';
import { waitFor } from '../../support/wait.ts';

export function password(cluster: string): string {
  return `pw-${cluster}-7f3a`;
}

export function user(cluster: string): BrokerUser {
  return { username: cluster, password: password(cluster), cluster };
}

export async function startAedes(owner: string, clusters: readonly string[], extra: Pick<EmbeddedBrokerOptions, 'pace'> = {}): Promise<{ broker: EmbeddedBroker; url: string; port: number }> {
  const broker = new EmbeddedBroker({ owner, host: '127.0.0.1', port: 0, users: clusters.map(user), ...extra });
  const { url, port } = await broker.start();
  return { broker, url, port };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', () => { resolve(); }); });
  const address = server.address();
  await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface Mosquitto {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly process: () => ChildProcess;
  /** Kills the broker (SIGKILL) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface MosquittoOptions {
  readonly owner: string;
  readonly users: readonly BrokerUser[];
  readonly bridgeUsers?: readonly string[];
  /** Extra mosquitto.conf lines (e.g. a bridge stanza). */
  readonly extra?: string;
  /** A TLS listener (mqtts) with this certificate, key and CA instead of plain MQTT. */
  readonly tls?: { readonly cert: string; readonly key: string; readonly ca: string };
  /** Port to listen on (a free one when absent). */
  readonly port?: number;
}

/** Runs `mosquitto -c <conf>` on 127.0.0.1 with a password file (mosquitto_passwd -b) and the generated ACL. */
export async function startMosquitto(options: MosquittoOptions): Promise<Mosquitto> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-mosquitto-'));
  const port = options.port ?? await freePort();
  const passwd = join(dir, 'passwd');
  await writeFile(passwd, '');
  for (const u of options.users) {
    const r = spawnSync('mosquitto_passwd', ['-b', passwd, u.username, u.password]);
    if (r.status !== 0) throw new Error(`mosquitto_passwd failed: ${r.stderr.toString()}`);
  }
  await writeFile(join(dir, 'acl'), mosquittoAcl({ owner: options.owner, ...(options.bridgeUsers === undefined ? {} : { bridgeUsers: options.bridgeUsers }) }));
  const conf = join(dir, 'mosquitto.conf');
  await writeFile(conf, [
    `listener ${port} 127.0.0.1`, ...(await tlsLines(dir, options.tls)), 'allow_anonymous false', `password_file ${passwd}`, `acl_file ${join(dir, 'acl')}`,
    // As root, mosquitto would switch to its own user, which cannot read this private directory.
    ...(process.getuid?.() === 0 ? ['user root'] : []),
    'persistence false', 'log_dest stderr', 'log_type error', 'log_type warning', options.extra ?? '', '',
  ].join('\n'));
  let child: ChildProcess | undefined;
  let stderr = '';
  const launch = async (): Promise<void> => {
    child = spawn('mosquitto', ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
    const proc = child;
    await waitFor(`mosquitto on port ${port}`, async () => (await canConnect(port)) ? true : undefined, {
      timeoutMs: 10_000, abortIf: () => (proc.exitCode !== null ? `mosquitto exited ${proc.exitCode}: ${stderr}` : undefined),
    });
  };
  const kill = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined || proc.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => { proc.once('exit', () => { resolve(); }); });
    proc.kill('SIGKILL');
    await gone;
  };
  await launch();
  return {
    url: `${options.tls === undefined ? 'mqtt' : 'mqtts'}://127.0.0.1:${port}`, port, dir,
    process: () => { if (child === undefined) throw new Error('not started'); return child; },
    kill, restart: launch,
    stop: async () => { await kill(); await rm(dir, { recursive: true, force: true }); },
  };
}

async function tlsLines(dir: string, tls: MosquittoOptions['tls']): Promise<string[]> {
  if (tls === undefined) return [];
  for (const [file, pem] of [['server.crt', tls.cert], ['server.key', tls.key], ['ca.crt', tls.ca]] as const) await writeFile(join(dir, file), pem, { mode: 0o600 });
  return [`certfile ${join(dir, 'server.crt')}`, `keyfile ${join(dir, 'server.key')}`, `cafile ${join(dir, 'ca.crt')}`];
}

async function canConnect(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => { resolve(false); });
  });
}
