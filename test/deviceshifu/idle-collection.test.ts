// deviceShifu as its pod runs it (its own NODE_FLAGS, --expose-gc among them) collects its heap
// once a burst of calls is over (shared/idle-collector.ts), and keeps answering afterwards.
import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEVICE_SHIFU_NODE_FLAGS } from '../../controller/bundle/node-flags.ts';
import { waitFor } from '../support/wait.ts';
import { ConfigDir } from './support/configdir.ts';
import { mockDevice } from './support/mocks.ts';

interface LogLine { readonly msg?: string; readonly time?: string; readonly address?: string; readonly heapUsedBefore?: number; readonly heapUsedAfter?: number }

test('after a burst of calls, deviceShifu collects its heap once the event loop goes quiet, and still answers', async (t) => {
  t.true(DEVICE_SHIFU_NODE_FLAGS.includes('--expose-gc'), 'the flag that turns the collector on is in the pod\'s flags');
  const device = await mockDevice(t, 'thermometer');
  const config = await ConfigDir.create(t, { instructions: 'instructions:\n  read_value:\n    readWrite: R\n' });
  const dir = await mkdtemp(join(tmpdir(), 'idle-collection-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const edgedevice = join(dir, 'edgedevice.yaml');
  await writeFile(edgedevice, `apiVersion: shifu.edgenesis.io/v1alpha1\nkind: EdgeDevice\nmetadata: {name: idle, namespace: devices}\nspec: {sku: T, connection: Ethernet, address: "${device.address}", protocol: HTTP}\n`);
  const child = spawn(process.execPath, [...DEVICE_SHIFU_NODE_FLAGS, '--import=tsx', 'deviceshifu/main.ts', '--config-dir', config.dir, '--edgedevice-file', edgedevice, '--port', '0'],
    { env: { ...process.env, EDGESHIFU_LOG_LEVEL: 'debug' }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => { child.kill('SIGTERM'); });
  const lines: LogLine[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => { try { lines.push(JSON.parse(line) as LogLine); } catch { /* not a log line */ } });
  const collections = (): LogLine[] => lines.filter((l) => l.msg === 'heap collected while idle');

  const address = await waitFor('deviceShifu listening', () => lines.find((l) => l.msg === 'deviceShifu listening')?.address, { timeoutMs: 60_000 });
  await waitFor('the collection after start-up', () => collections().length >= 1 || undefined, { timeoutMs: 60_000 });
  const beforeBurst = collections().length;

  const url = `http://${address}/read_value`;
  const statuses: number[] = [];
  await Promise.all(Array.from({ length: 16 }, async () => {
    for (let i = 0; i < 150; i++) statuses.push((await fetch(url)).status);
  }));
  t.is(statuses.filter((s) => s !== 200).length, 0, 'every call of the burst answered 200');

  const after = await waitFor('a collection after the burst', () => collections()[beforeBurst], { timeoutMs: 60_000 });
  t.true((after.heapUsedAfter ?? Infinity) < (after.heapUsedBefore ?? 0), `the collection freed heap: ${String(after.heapUsedBefore)} → ${String(after.heapUsedAfter)} bytes`);
  t.is((await fetch(url)).status, 200, 'deviceShifu answers after the collection');
});
