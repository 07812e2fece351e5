// deviceShifu benchmark: the thermometer mock on loopback, read_value through deviceShifu versus
// straight to the device (the baseline of the same run), at 1 and 64 keep-alive connections;
// plus deviceShifu's RSS idle and under load.
//   npm run bench:deviceshifu                      standalone mode (ConfigMap dir + EdgeDevice file)
//   npm run bench:deviceshifu -- --kube            Kubernetes mode: a private control plane, the
//                                                  EdgeDevice read and watched from the API, status written
// deviceShifu runs as the image runs it: the esbuild bundle (dist/bundle/deviceshifu.js, built by
// `npm run build:bundle`) on plain node with the image's NODE_FLAGS (read from the Dockerfile,
// or --node-flags). Each load row stops after REQUESTS requests or SECONDS seconds.
// Idle RSS is the mean of one sample a second over the last 20 s of a 30 s idle window (--idle-seconds):
// the first seconds after start hold startup garbage that V8's memory reducer returns later.
// Beside deviceShifu over the same window, with the same flags, the floors it stands on: bare node,
// node with an HTTP server listening, and (--kube) node with an HTTP server and one TLS watch on
// the API server (node:http(s) and nothing else). deviceShifu runs in a memory cgroup of its own
// where the machine allows one, and its container working set (what the kubelet reports) is
// printed beside its RSS (bench/container-memory.ts says why they differ).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { describeContainerMemory, memoryCgroup, type MemoryCgroup } from './container-memory.ts';
import { floorEndpoint, HTTP_FLOOR, TLS_WATCH_FLOOR } from './floors.ts';
import { imageNodeFlags } from './node-flags.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONCURRENCY = [1, 64];
const ROOT = new URL('../', import.meta.url);

const { values } = parseArgs({
  options: {
    kube: { type: 'boolean', default: false },
    bundle: { type: 'string', default: 'dist/bundle' },
    'node-flags': { type: 'string' },
    'idle-seconds': { type: 'string', default: '30' },
  },
});

interface Started { readonly child: ChildProcess; readonly line: Record<string, unknown> }


/** Starts a bundled entrypoint and resolves with the first stdout JSON line that `ready` accepts. */
async function start(script: string, args: string[], ready: (line: Record<string, unknown>) => boolean, options: { env?: NodeJS.ProcessEnv; flags?: string[]; cgroup?: MemoryCgroup } = {}): Promise<Started> {
  const argv = [...(options.flags ?? []), script, ...args];
  const command = options.cgroup === undefined ? { command: process.execPath, args: argv } : options.cgroup.wrap(process.execPath, argv);
  const child = spawn(command.command, command.args, { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'inherit'] });
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

interface Memory { readonly rss: number; readonly hwm: number; readonly anon: number; readonly file: number }

async function memoryOf(pid: number): Promise<Memory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
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

/** In Kubernetes mode the EdgeDevice arrives after the port opens: wait for the first 200 (30 s at most). */
async function firstAnswer(agent: Agent, url: URL): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      await get(agent, url);
      return;
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await delay(200);
    }
  }
}

interface Result { readonly rps: number; readonly p50: number; readonly p99: number; readonly count: number }

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

async function load(url: URL, concurrency: number): Promise<Result> {
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
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), count: latencies.length };
}

async function thermometerFiles(dir: string, deviceAddress: string): Promise<{ configDir: string; edgedevice: string; manifest: string }> {
  const configDir = join(dir, 'config');
  await mkdir(configDir);
  const configMap = parse(await readFile(new URL('test/support/shifu/thermometer-configmap.yaml', ROOT), 'utf8')) as { data: Record<string, string> };
  for (const [key, text] of Object.entries(configMap.data)) await writeFile(join(configDir, key), text);
  const manifest = (await readFile(new URL('test/support/shifu/thermometer.yaml', ROOT), 'utf8')).replace('thermometer.devices.svc.cluster.local:11111', deviceAddress);
  await writeFile(join(dir, 'edgedevice.yaml'), manifest);
  return { configDir, edgedevice: join(dir, 'edgedevice.yaml'), manifest };
}

type Cleanup = () => Promise<void>;

/** Kubernetes mode: a private control plane holding Shifu's thermometer EdgeDevice (loaded only with --kube). */
async function kubeEnvironment(manifest: string, cleanups: Cleanup[]): Promise<NodeJS.ProcessEnv> {
  const [{ startCluster }, { Kube }, { installCrds }, { kubectl }] = await Promise.all([
    import('../test/support/controlplane/cluster.ts'), import('../test/support/cluster.ts'), import('../test/support/crds.ts'), import('../test/support/kubectl.ts'),
  ]);
  const cluster = await startCluster({ name: 'edgeshifu-bench-deviceshifu' });
  cleanups.push(() => cluster.stop());
  const kube = new Kube(cluster.kubeconfigPath);
  await installCrds(kube);
  await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], manifest);
  if (applied.code !== 0) throw new Error(applied.stderr);
  return { KUBECONFIG: cluster.kubeconfigPath, EDGEDEVICE_NAME: 'edgedevice-thermometer', EDGEDEVICE_NAMESPACE: 'devices' };
}

interface Floor { readonly label: string; readonly child: ChildProcess }

/** The floors, started with the same flags; in Kubernetes mode the TLS one watches the bench's EdgeDevices. */
function startFloors(flags: string[], kubeconfig: string | undefined): Floor[] {
  const node = (script: string, env: NodeJS.ProcessEnv = {}): ChildProcess => spawn(process.execPath, [...flags, '-e', script], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
  const floors: Floor[] = [{ label: 'bare node', child: node('setInterval(() => {}, 1000)') }, { label: 'node + HTTP server', child: node(HTTP_FLOOR) }];
  if (kubeconfig !== undefined) {
    const FLOOR_ENDPOINT = floorEndpoint(kubeconfig, '/apis/shifu.edgenesis.io/v1alpha1/namespaces/devices/edgedevices');
    floors.push({ label: 'node + HTTP server + TLS watch', child: node(HTTP_FLOOR + TLS_WATCH_FLOOR, { FLOOR_ENDPOINT }) });
  }
  return floors;
}

/** Mean RSS (and its parts) of each process, one sample a second, over the last `seconds` of the wait. */
async function idleMemory(pids: readonly number[], waitSeconds: number, seconds: number): Promise<Memory[]> {
  await delay(Math.max(0, waitSeconds - seconds) * 1000);
  const sums = pids.map(() => ({ rss: 0, hwm: 0, anon: 0, file: 0 }));
  for (let s = 0; s < seconds; s += 1) {
    await delay(1000);
    const now = await Promise.all(pids.map(memoryOf));
    now.forEach((m, i) => { const sum = sums[i]; if (sum !== undefined) { sum.rss += m.rss; sum.anon += m.anon; sum.file += m.file; sum.hwm = m.hwm; } });
  }
  return sums.map((m) => ({ rss: m.rss / seconds, anon: m.anon / seconds, file: m.file / seconds, hwm: m.hwm }));
}

const fmt = (n: number, digits = 3): string => n.toFixed(digits);
const mib = (m: Memory, key: keyof Memory): string => `${fmt(m[key], 1)} MiB`;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-deviceshifu-'));
  const children: ChildProcess[] = [];
  const cleanups: Cleanup[] = [];
  try {
    const bundle = new URL(`${values.bundle}/`, ROOT).pathname;
    const flags = values['node-flags'] === undefined ? await imageNodeFlags() : values['node-flags'].split(/\s+/).filter(Boolean);
    const mock = await start(join(bundle, 'mockdevice.js'), ['thermometer'], (l) => typeof l.address === 'string', { env: { MOCKDEVICE_PORT: '0' } });
    children.push(mock.child);
    const files = await thermometerFiles(dir, String(mock.line.address));
    const env = values.kube ? await kubeEnvironment(files.manifest, cleanups) : {};
    const args = ['--config-dir', files.configDir, '--port', '0', ...(values.kube ? [] : ['--edgedevice-file', files.edgedevice])];
    const cgroup = await memoryCgroup(`edgeshifu-bench-deviceshifu-${String(process.pid)}`);
    if (typeof cgroup !== 'string') cleanups.push(() => cgroup.remove());
    const shifu = await start(join(bundle, 'deviceshifu.js'), args, (l) => l.msg === 'deviceShifu listening', { env: { ...env, EDGESHIFU_LOG_LEVEL: 'info' }, flags, ...(typeof cgroup === 'string' ? {} : { cgroup }) });
    children.push(shifu.child);
    const pid = shifu.child.pid ?? 0;
    const direct = new URL(`http://${String(mock.line.address)}/read_value`);
    const through = new URL(`http://${String(shifu.line.address)}/read_value`);
    const ping = new Agent();
    await firstAnswer(ping, through);
    // idle: the telemetry polls on, nothing else; the floors beside it over the same window
    const floors = startFloors(flags, env.KUBECONFIG);
    children.push(...floors.map((f) => f.child));
    const idleSeconds = Number(values['idle-seconds']);
    const [idle, ...floorMemory] = await idleMemory([pid, ...floors.map((f) => f.child.pid ?? 0)], idleSeconds, Math.min(20, idleSeconds));
    const idleContainer = typeof cgroup === 'string' ? undefined : await cgroup.read();
    for (const f of floors) f.child.kill('SIGTERM');
    if (idle === undefined) throw new Error('no idle figure');
    console.log(`deviceShifu benchmark (${values.kube ? 'Kubernetes mode, private control plane' : 'standalone mode'}): node ${process.version} ${flags.join(' ')} ${join(values.bundle, 'deviceshifu.js')}`);
    console.log(`thermometer mock on loopback, GET /read_value, up to ${REQUESTS} requests or ${SECONDS} s per row`);
    console.log('connections | target      | req/s    | p50 ms | p99 ms | requests');
    for (const c of CONCURRENCY) {
      const base = await load(direct, c);
      const via = await load(through, c);
      for (const [name, r] of [['device', base], ['deviceShifu', via]] as const) {
        console.log(`${String(c).padStart(11)} | ${name.padEnd(11)} | ${fmt(r.rps, 0).padStart(8)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.count}`);
      }
      console.log(`${String(c).padStart(11)} | ratio       | throughput ${fmt(via.rps / base.rps, 2)}x, p50 ${fmt(via.p50 / base.p50, 2)}x (+${fmt(via.p50 - base.p50)} ms), p99 ${fmt(via.p99 / base.p99, 2)}x`);
    }
    const loaded = await memoryOf(pid);
    const window = `mean of the last ${String(Math.min(20, idleSeconds))} s of ${String(idleSeconds)} s idle`;
    console.log(`deviceShifu RSS idle ${mib(idle, 'rss')} (${window}; anonymous ${mib(idle, 'anon')}, file-backed ${mib(idle, 'file')}); peak ${mib(loaded, 'hwm')} (VmHWM); after load ${mib(loaded, 'rss')}`);
    const container = typeof cgroup === 'string' ? cgroup : `idle ${idleContainer === undefined ? '?' : describeContainerMemory(idleContainer)}; after load ${describeContainerMemory(await cgroup.read())}`;
    console.log(`deviceShifu as a container (its own memory cgroup, read as the kubelet reads it): ${container}`);
    floors.forEach((f, i) => {
      const m = floorMemory[i];
      if (m !== undefined) console.log(`floor, ${f.label}, same flags and window: RSS ${mib(m, 'rss')} (anonymous ${mib(m, 'anon')}, file-backed ${mib(m, 'file')}); deviceShifu above it: ${fmt(idle.rss - m.rss, 1)} MiB`);
    });
    ping.destroy();
  } finally {
    for (const child of children) child.kill('SIGTERM');
    for (const cleanup of cleanups.reverse()) await cleanup();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
