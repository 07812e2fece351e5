// OPC UA deviceShifu benchmark: the OPC UA mock (its own process, the mockdevice bundle) on
// loopback; reads of one Double node through deviceShifu (GET /temperature) against node-opcua's
// own client reading the same node straight from the mock, in the same run, at 1 and 16
// concurrent reads; plus deviceShifu's RSS and container working set idle and after the load.
//   npm run bench:deviceshifu -- --protocol opcua [--idle-seconds 20]
// deviceShifu runs as the controller's Deployment runs it: dist/bundle/deviceshifu.js with
// deviceShifu's own NODE_FLAGS for OPCUA (controller/bundle/node-flags.ts); the mock on node's defaults.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { AttributeIds, OPCUAClient } from 'node-opcua-client';
import { describeContainerMemory, memoryCgroup, type ContainerMemory, type MemoryCgroup } from './container-memory.ts';
import { deviceShifuNodeFlags } from './node-flags.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = [1, 16];
const ROOT = new URL('../', import.meta.url).pathname;
const { values } = parseArgs({ options: { 'idle-seconds': { type: 'string', default: '20' }, bundle: { type: 'string', default: 'dist/bundle' } } });

interface Result { readonly rps: number; readonly p50: number; readonly p99: number }

async function firstLine(child: ChildProcess, ready: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  if (child.stdout === null) throw new Error('no stdout');
  for await (const text of createInterface({ input: child.stdout })) {
    try {
      const line = JSON.parse(text) as Record<string, unknown>;
      if (ready(line)) { child.stdout.resume(); return line; }
    } catch { /* not JSON */ }
  }
  throw new Error('the process exited before it was ready');
}

async function measure(read: () => Promise<unknown>, concurrency: number): Promise<Result> {
  for (let i = 0; i < 50; i += 1) await read();
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await read();
      latencies.push(performance.now() - t0);
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}

function httpGet(agent: Agent, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => { res.resume(); res.once('end', () => { if (res.statusCode === 200) resolve(); else reject(new Error(`status ${String(res.statusCode)}`)); }); }).once('error', reject).end();
  });
}

async function memory(pid: number, cgroup: MemoryCgroup | undefined): Promise<{ rss: number; anon: number; container?: ContainerMemory }> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), ...(cgroup === undefined ? {} : { container: await cgroup.read() }) };
}

const flags = deviceShifuNodeFlags('OPCUA');
const bundle = join(ROOT, values.bundle);
const mock = spawn(process.execPath, [join(bundle, 'mockdevice.js'), 'opcua'], { env: { ...process.env, MOCKDEVICE_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
const dir = await mkdtemp(join(tmpdir(), 'bench-opcua-'));
const cgroupOrWhy = await memoryCgroup(`bench-deviceshifu-opcua-${String(process.pid)}`);
const cgroup = typeof cgroupOrWhy === 'string' ? undefined : cgroupOrWhy;
let shifu: ChildProcess | undefined;
try {
  const endpoint = String((await firstLine(mock, (l) => l.device === 'opcua')).address);
  await writeFile(join(dir, 'instructions'), 'instructions:\n  temperature:\n    protocolPropertyList:\n      OPCUANodeID: "ns=2;i=3"\n');
  await writeFile(join(dir, 'edgedevice.yaml'), `apiVersion: shifu.edgenesis.io/v1alpha1\nkind: EdgeDevice\nmetadata:\n  name: bench-opcua\n  namespace: devices\nspec:\n  protocol: OPCUA\n  address: ${endpoint}\n`);
  const argv = [...flags, join(bundle, 'deviceshifu.js'), '--port', '0', '--config-dir', dir, '--edgedevice-file', join(dir, 'edgedevice.yaml'), '--opcua-pki-dir', join(dir, 'pki')];
  const command = cgroup === undefined ? { command: process.execPath, args: argv } : cgroup.wrap(process.execPath, argv);
  shifu = spawn(command.command, command.args, { env: { ...process.env, EDGESHIFU_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const listening = await firstLine(shifu, (l) => l.msg === 'deviceShifu listening');
  const url = `http://${String(listening.address)}/temperature`;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  for (let i = 0; i < 300; i += 1) { try { await httpGet(agent, url); break; } catch { await delay(100); } }
  const idleSeconds = Number(values['idle-seconds']);
  await delay(idleSeconds * 1000);
  const idle = await memory(shifu.pid ?? 0, cgroup);
  const client = OPCUAClient.create({ endpointMustExist: false, connectionStrategy: { maxRetry: 0 } });
  await client.connect(endpoint);
  const session = await client.createSession();
  const load1 = loadavg()[0] ?? 0;
  console.log(`OPC UA read of ns=2;i=3, ${String(SECONDS)} s per row, load average ${load1.toFixed(2)}, deviceShifu NODE_FLAGS ${flags.join(' ')}`);
  console.log('| concurrent reads | node-opcua client straight: reads/s, p50, p99 | through deviceShifu: reads/s, p50, p99 | ratio (reads/s) |');
  console.log('|---|---|---|---|');
  for (const concurrency of CONCURRENCY) {
    const direct = await measure(() => session.read({ nodeId: 'ns=2;i=3', attributeId: AttributeIds.Value }), concurrency);
    const through = await measure(() => httpGet(agent, url), concurrency);
    const f = (r: Result): string => `${r.rps.toFixed(0)}, ${r.p50.toFixed(2)} ms, ${r.p99.toFixed(2)} ms`;
    console.log(`| ${String(concurrency)} | ${f(direct)} | ${f(through)} | ${(through.rps / direct.rps).toFixed(2)}x |`);
  }
  await session.close();
  await client.disconnect();
  agent.destroy();
  await delay(2000);
  const after = await memory(shifu.pid ?? 0, cgroup);
  const m = (x: typeof idle): string => `RSS ${x.rss.toFixed(1)} MiB (anonymous ${x.anon.toFixed(1)})${x.container === undefined ? '' : `, ${describeContainerMemory(x.container)}`}`;
  console.log(`deviceShifu idle (${String(idleSeconds)} s after its first answer): ${m(idle)}`);
  console.log(`deviceShifu after the load: ${m(after)}`);
  console.log(`load average at the end ${(loadavg()[0] ?? 0).toFixed(2)}${cgroup === undefined ? ` (no cgroup: ${typeof cgroupOrWhy === "string" ? cgroupOrWhy : ""})` : ''}`);
} finally {
  shifu?.kill('SIGTERM');
  mock.kill('SIGTERM');
  await cgroup?.remove();
  await rm(dir, { recursive: true, force: true });
}
