// The host without Kubernetes (--devices-dir): every device directory served on its port, one
// device's configuration reloaded on its own, LwM2M devices each with its own server on UDP at
// its port's number, and a directory that cannot be served refused with what to fix.
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
import { errorOf, lwm2mClient, lwm2mInstructions } from './support/lwm2m.ts';

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

async function lwm2mDeviceDir(root: string, name: string, port: number): Promise<void> {
  const dir = join(root, name);
  await mkdir(join(dir, 'config'), { recursive: true });
  await writeFile(join(dir, 'port'), String(port));
  await writeFile(join(dir, 'edgedevice.yaml'), `apiVersion: shifu.edgenesis.io/v1alpha1\nkind: EdgeDevice\nmetadata: {name: ${name}}\nspec: {protocol: LwM2M, protocolSettings: {LwM2MSetting: {endpointName: ${name}}}}\n`);
  for (const [key, value] of Object.entries(lwm2mInstructions())) await writeFile(join(dir, 'config', key), value);
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

test('two LwM2M devices and an HTTP device on one host: each client registers with its own device, and reads and writes reach it alone', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const root = await scratch(t);
  const [pa, pb, pt] = await freePorts(3) as [number, number, number];
  await lwm2mDeviceDir(root, 'meter-a', pa);
  await lwm2mDeviceDir(root, 'meter-b', pb);
  await deviceDir(root, 'thermo', thermometer.address, pt);
  const running = await runHost({ settings: settingsFor(root), env: {}, logger: createLogger('test', { level: 'silent' }) });
  t.teardown(() => running.stop());
  const body = async (port: number, path: string, init: RequestInit = {}): Promise<[number, string]> => {
    const reply = await fetch(`http://127.0.0.1:${String(port)}${path}`, init);
    return [reply.status, await reply.text()];
  };
  const before = await body(pb, '/temperature');
  t.is(before[0], 503, 'meter-b before its client registered');
  t.regex(errorOf({ body: before[1] }), new RegExp(`"meter-b" has not registered with deviceShifu \\(listening on UDP port ${String(pb)}\\)`));

  // each client registers at its device's port, on UDP; a client at the wrong device is refused
  const a = await lwm2mClient(t, pa, { endpointName: 'meter-a' });
  const stray = await lwm2mClient(t, pa, { endpointName: 'meter-b' });
  t.truthy(a.location(), 'meter-a registered');
  t.is(stray.location(), undefined, 'meter-b\'s name at meter-a\'s port is refused');
  t.is((await body(pb, '/temperature'))[0], 503, 'and does not register meter-b');
  const b = await lwm2mClient(t, pb, { endpointName: 'meter-b' });
  a.setTemperature(12.5);
  b.setTemperature(27.5);
  t.deepEqual(await body(pa, '/temperature'), [200, '12.5']);
  t.deepEqual(await body(pb, '/temperature'), [200, '27.5']);
  t.deepEqual(await body(pa, '/dimmer', { method: 'PUT', body: '40' }), [200, '40']);
  t.deepEqual(await body(pb, '/dimmer', { method: 'PUT', body: '90' }), [200, '90']);
  t.is(a.objects.value('/3311/0/5851'), '40', 'meter-a\'s write reached meter-a');
  t.is(b.objects.value('/3311/0/5851'), '90', 'meter-b\'s write reached meter-b');
  t.is(await statusAt(pt, '/read_value'), 200, 'the HTTP device beside them');
  const listed = await (await fetch(`http://127.0.0.1:${String(running.address.port)}/devices`)).json() as Array<{ name: string; port: number; listening: boolean }>;
  t.deepEqual(listed.map((d) => [d.name, d.port, d.listening]), [['meter-a', pa, true], ['meter-b', pb, true], ['thermo', pt, true]]);
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
