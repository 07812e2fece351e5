// deviceShifu benchmark: the thermometer mock on loopback, read_value through deviceShifu versus
// straight to the device (the baseline of the same run), at 1 and 64 keep-alive connections;
// plus deviceShifu's RSS idle and under load. Run: npm run bench:deviceshifu
// Bounded: each measurement stops after REQUESTS requests or SECONDS seconds, whichever is first.
// deviceShifu runs as a production build would: bundled JavaScript (esbuild, code split so that
// unused protocols and the Kubernetes client stay unloaded), on plain node, no TypeScript loader.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { parse } from 'yaml';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONCURRENCY = [1, 64];
const ROOT = new URL('../', import.meta.url);

interface Started { readonly child: ChildProcess; readonly line: Record<string, unknown> }

/** Bundles deviceshifu/main.ts into `dir` and returns the entry file. */
async function bundle(dir: string): Promise<string> {
  await build({
    entryPoints: [new URL('deviceshifu/main.ts', ROOT).pathname], bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node24',
    outdir: join(dir, 'dist'), logLevel: 'warning',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return join(dir, 'dist', 'main.js');
}

/** Starts an entrypoint and resolves with the first stdout JSON line that `ready` accepts. */
async function start(script: string, args: string[], ready: (line: Record<string, unknown>) => boolean, env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const loader = script.endsWith('.ts') ? ['--import=tsx'] : [];
  const child = spawn(process.execPath, [...loader, script, ...args], { cwd: new URL('.', ROOT), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const text of createInterface({ input: child.stdout })) {
    let line: Record<string, unknown>;
    try { line = JSON.parse(text) as Record<string, unknown>; } catch { continue; }
    if (ready(line)) {
      child.stdout.resume();
      return { child, line };
    }
  }
  throw new Error(`${script} exited before it was ready`);
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

function get(agent: Agent, url: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.once('end', () => { if (res.statusCode === 200) resolve(performance.now() - started); else reject(new Error(`status ${res.statusCode ?? '?'}`)); });
    });
    req.once('error', reject);
    req.end();
  });
}

interface Result { readonly rps: number; readonly p50: number; readonly p99: number; readonly count: number }

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

async function load(url: URL, concurrency: number, onTick?: () => Promise<void>): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  for (let i = 0; i < concurrency * 4; i += 1) await get(agent, url);
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  let issued = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (issued < REQUESTS && performance.now() < deadline) {
      issued += 1;
      latencies.push(await get(agent, url));
      if (latencies.length % 2000 === 0) await onTick?.();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), count: latencies.length };
}

async function setup(dir: string, deviceAddress: string): Promise<{ configDir: string; edgedevice: string }> {
  const configDir = join(dir, 'config');
  await (await import('node:fs/promises')).mkdir(configDir);
  const manifest = parse(await readFile(new URL('test/support/shifu/thermometer-configmap.yaml', ROOT), 'utf8')) as { data: Record<string, string> };
  for (const [key, text] of Object.entries(manifest.data)) await writeFile(join(configDir, key), text);
  const edgedevice = (await readFile(new URL('test/support/shifu/thermometer.yaml', ROOT), 'utf8')).replace('thermometer.devices.svc.cluster.local:11111', deviceAddress);
  await writeFile(join(dir, 'edgedevice.yaml'), edgedevice);
  return { configDir, edgedevice: join(dir, 'edgedevice.yaml') };
}

const fmt = (n: number, digits = 3): string => n.toFixed(digits);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-deviceshifu-'));
  const children: ChildProcess[] = [];
  try {
    const mock = await start('deviceshifu/mockdevice/main.ts', ['thermometer'], (l) => typeof l.address === 'string', { MOCKDEVICE_PORT: '0' });
    children.push(mock.child);
    const { configDir, edgedevice } = await setup(dir, String(mock.line.address));
    const shifu = await start(await bundle(dir), ['--config-dir', configDir, '--edgedevice-file', edgedevice, '--port', '0'], (l) => l.msg === 'deviceShifu listening', { EDGESHIFU_LOG_LEVEL: 'info' });
    children.push(shifu.child);
    const pid = shifu.child.pid ?? 0;
    const direct = new URL(`http://${String(mock.line.address)}/read_value`);
    const through = new URL(`http://${String(shifu.line.address)}/read_value`);
    await get(new Agent(), through);
    const idle = await rssMiB(pid);
    let peak = idle;
    const sample = async (): Promise<void> => { peak = Math.max(peak, await rssMiB(pid)); };
    console.log(`deviceShifu benchmark: thermometer mock on loopback, GET /read_value, up to ${REQUESTS} requests or ${SECONDS} s per row`);
    console.log('connections | target      | req/s    | p50 ms | p99 ms | requests');
    for (const c of CONCURRENCY) {
      const base = await load(direct, c);
      const via = await load(through, c, sample);
      await sample();
      for (const [name, r] of [['device', base], ['deviceShifu', via]] as const) {
        console.log(`${String(c).padStart(11)} | ${name.padEnd(11)} | ${fmt(r.rps, 0).padStart(8)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.count}`);
      }
      console.log(`${String(c).padStart(11)} | ratio       | throughput ${fmt(via.rps / base.rps, 2)}x, p50 ${fmt(via.p50 / base.p50, 2)}x (+${fmt(via.p50 - base.p50)} ms), p99 ${fmt(via.p99 / base.p99, 2)}x`);
    }
    console.log(`deviceShifu RSS: idle ${fmt(idle, 1)} MiB, loaded (peak) ${fmt(peak, 1)} MiB`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
