// deviceShifu as its pod runs it (its own NODE_FLAGS, --expose-gc among them) collects its heap
// once a heavy burst of calls is over (shared/idle-collector.ts), leaves a light one uncollected,
// and keeps answering afterwards.
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

interface LogLine { readonly msg?: string; readonly time?: string; readonly address?: string; readonly heapBytesBefore?: number; readonly heapBytesAfter?: number; readonly heapBytes?: number; readonly heapFloor?: number }

test('after a heavy burst of calls deviceShifu collects its heap once the event loop goes quiet, after a light one it does not, and it still answers', async (t) => {
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
  const burst = async (callers: number, calls: number): Promise<void> => {
    const statuses: number[] = [];
    await Promise.all(Array.from({ length: callers }, async () => {
      for (let i = 0; i < calls; i++) statuses.push((await fetch(url)).status);
    }));
    t.is(statuses.filter((s) => s !== 200).length, 0, `every call of the burst of ${String(callers)} callers answered 200`);
  };
  const skipped = (): LogLine[] => lines.filter((l) => l.msg === 'heap grew too little to collect while idle');

  // one caller, 150 calls: the heap grows by less than the threshold
  await burst(1, 150);
  const light = await waitFor('the decision after the light burst', () => skipped()[0], { timeoutMs: 60_000 });
  t.is(collections().length, beforeBurst, `no collection after the light burst (heap ${String(light.heapBytes)} bytes, ${String(light.heapFloor)} after the last collection)`);

  // heavy bursts, each followed by the collector's decision, until one is collected: how much a
  // burst grows the heap varies with scheduling, and the heap kept grows from burst to burst
  let heavyBursts = 0;
  while (collections().length === beforeBurst && heavyBursts < 5) {
    const decided = collections().length + skipped().length;
    await burst(128, 60);
    heavyBursts += 1;
    await waitFor(`the decision after heavy burst ${String(heavyBursts)}`, () => collections().length + skipped().length > decided || undefined, { timeoutMs: 60_000 });
  }
  const after = collections()[beforeBurst];
  if (after === undefined) return t.fail(`no collection after ${String(heavyBursts)} heavy bursts: ${JSON.stringify(skipped().slice(1))}`);
  t.log(`light: heap ${String(light.heapBytes)} floor ${String(light.heapFloor)}; heavy bursts ${String(heavyBursts)}: ${String(after.heapBytesBefore)} → ${String(after.heapBytesAfter)}`);
  t.true((after.heapBytesAfter ?? Infinity) < (after.heapBytesBefore ?? 0), `the collection shrank the heap: ${String(after.heapBytesBefore)} → ${String(after.heapBytesAfter)} bytes`);
  t.is((await fetch(url)).status, 200, 'deviceShifu answers after the collection');
});
