// The host without Kubernetes (--devices-dir): every device directory served on its port, one
// device's configuration reloaded on its own, and a directory that cannot be served refused with
// what to fix.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import { runHost } from '../../deviceshifu/host/run.ts';
import { HostSettings } from '../../deviceshifu/host/settings.ts';
import { freePorts } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { mockDevice } from './support/mocks.ts';

async function scratch(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'host-dir-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function deviceDir(root: string, name: string, address: string, port: number | string): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, 'config'), { recursive: true });
  await writeFile(join(dir, 'port'), String(port));
  await writeFile(join(dir, 'edgedevice.yaml'), `apiVersion: shifu.edgenesis.io/v1alpha1\nkind: EdgeDevice\nmetadata: {name: ${name}}\nspec: {protocol: HTTP, address: "${address}"}\n`);
  await writeFile(join(dir, 'config', 'instructions'), 'instructions:\n  read_value:\n    readWrite: R\n');
  return dir;
}

const settingsFor = (dir: string): HostSettings => loadConfig(HostSettings, { argv: ['--devices-dir', dir, '--admin-port', '0'], env: {} });
const statusAt = async (port: number, path: string): Promise<number> => { const r = await fetch(`http://127.0.0.1:${String(port)}${path}`); await r.arrayBuffer(); return r.status; };

test('every device directory is served on its own port, and one device\'s configuration reloads alone', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const root = await scratch(t);
  const [pa, pb] = await freePorts(2) as [number, number];
  const a = await deviceDir(root, 'a', thermometer.address, pa);
  await deviceDir(root, 'b', thermometer.address, pb);
  const running = await runHost({ settings: settingsFor(root), env: {}, logger: createLogger('test', { level: 'silent' }) });
  t.teardown(() => running.stop());
  t.is(await statusAt(pa, '/read_value'), 200);
  t.is(await statusAt(pb, '/read_value'), 200);
  await writeFile(join(a, 'config', 'instructions'), 'instructions:\n  get_status:\n    readWrite: R\n');
  await waitFor('a reloaded', async () => ((await statusAt(pa, '/read_value')) === 404 ? true : undefined));
  t.is(await statusAt(pa, '/get_status'), 200);
  t.is(await statusAt(pb, '/read_value'), 200, 'b untouched');
  t.is(await statusAt(running.address.port, '/health'), 200, 'the host\'s own /health');
});

test('a device directory without a usable port is refused, naming the file to fix', async (t) => {
  const root = await scratch(t);
  await deviceDir(root, 'nope', '127.0.0.1:1', 'eighty');
  const error = await t.throwsAsync(runHost({ settings: settingsFor(root), env: {}, logger: createLogger('test', { level: 'silent' }) }));
  t.regex(error.message, /nope\/port must hold the device's port/);
});

test('Kubernetes mode without a host id says what to set', async (t) => {
  const settings = loadConfig(HostSettings, { argv: ['--admin-port', '0'], env: {} });
  const error = await t.throwsAsync(runHost({ settings, env: {}, logger: createLogger('test', { level: 'silent' }) }));
  t.regex(error.message, /EDGESHIFU_HOST_ID is not set/);
});
