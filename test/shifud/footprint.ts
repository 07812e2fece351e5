// shifud's footprint, measured: RSS and idle CPU against a real control plane with N EdgeDevices
// probed at the default periods — as shipped (an esbuild bundle run with the DaemonSet's V8
// flags), and from source (Node 24 runs the TypeScript as is) — beside a bare Node process as
// the baseline of the same run. Prints its figures.
//   npx tsx test/shifud/footprint.ts [devices=50] [seconds=60]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { setTimeout as delay } from 'node:timers/promises';
import { startCluster } from '../support/controlplane/cluster.ts';
import { Kube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { waitFor } from '../support/wait.ts';
import { MockDevice, createDevice, readDevice, reachable } from './harness.ts';

const NODE = new URL('../../node_modules/.bin/node', import.meta.url).pathname;
const MAIN = new URL('../../shifud/main.ts', import.meta.url).pathname;
const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ
/** The V8 flags of manifests/shifud/daemonset.yaml: a small young generation, no optimising JIT. */
const SHIPPED_FLAGS = ['--max-semi-space-size=1', '--lite-mode', '--max-old-space-size=96'];

/** The bundle the image ships: one ES module, tree-shaken and minified. */
async function bundle(dir: string): Promise<string> {
  const outfile = join(dir, 'shifud.mjs');
  await build({
    entryPoints: [MAIN], bundle: true, platform: 'node', format: 'esm', target: 'node24', minify: true, outfile, logLevel: 'warning',
    // CommonJS dependencies inside an ES module bundle need a require
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}

interface Figures { readonly rssMB: number; readonly peakRssMB: number; readonly anonMB: number; readonly cpuPercent: number }

async function status(pid: number): Promise<Record<string, number>> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kB = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: kB('VmRSS'), hwm: kB('VmHWM'), anon: kB('RssAnon') };
}

async function cpuTicks(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}

/** CPU share over `seconds` of an already warm process, and its memory at the end. */
async function measure(child: ChildProcess, seconds: number): Promise<Figures> {
  const pid = child.pid ?? 0;
  const ticks0 = await cpuTicks(pid);
  const t0 = performance.now();
  await delay(seconds * 1000);
  const ticks = await cpuTicks(pid) - ticks0;
  const elapsed = (performance.now() - t0) / 1000;
  const s = await status(pid);
  const mb = (kB: number | undefined): number => Math.round((kB ?? 0) / 102.4) / 10;
  return { rssMB: mb(s.rss), peakRssMB: mb(s.hwm), anonMB: mb(s.anon), cpuPercent: Math.round(ticks / CLOCK_TICKS_PER_SECOND / elapsed * 10_000) / 100 };
}

function start(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(NODE, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  return child;
}

async function main(): Promise<void> {
  const devices = Number(process.argv[2] ?? 50);
  const seconds = Number(process.argv[3] ?? 60);
  const cluster = await startCluster({ name: 'shifud-footprint' });
  const children: ChildProcess[] = [];
  const device = await new MockDevice().up();
  const dir = await mkdtemp(join(tmpdir(), 'shifud-footprint-'));
  try {
    const shipped = await bundle(dir);
    const kube = new Kube(cluster.kubeconfigPath);
    await installCrds(kube);
    await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
    for (let i = 0; i < devices; i += 1) await createDevice(kube, 'devices', `plc-${i}`, { protocol: 'TCP', address: device.address });
    const rows: Array<[string, Figures]> = [];
    const baseline = start(['-e', 'setInterval(() => {}, 1000)'], {});
    children.push(baseline);
    const variants: Array<[string, string[]]> = [['shifud as shipped (bundle, DaemonSet flags)', [...SHIPPED_FLAGS, shipped]], ['shifud from source (main.ts)', [MAIN]]];
    for (const [label, args] of variants) {
      const shifud = start(args, { KUBECONFIG: cluster.kubeconfigPath, NODE_NAME: `edge-${rows.length}`, EDGESHIFU_DEVICE_NAMESPACE: 'devices', EDGESHIFU_LOG_LEVEL: 'warn' });
      children.push(shifud);
      const node = `edge-${rows.length}`;
      await waitFor(`every device seen by ${node}`, async () => {
        for (let i = 0; i < devices; i += 1) {
          const d = await readDevice(kube, 'devices', `plc-${i}`);
          if (!(d.status?.links ?? []).some((l) => l.node === node) || reachable(d)?.status !== 'True') return undefined;
        }
        return true;
      }, { timeoutMs: 120_000, intervalMs: 1000 });
      rows.push([label, await measure(shifud, seconds)]);
      shifud.kill('SIGTERM');
    }
    rows.push(['bare node (baseline)', await measure(baseline, seconds)]);
    const base = rows[rows.length - 1]?.[1];
    console.log(`shifud footprint: ${devices} EdgeDevices (TCP, probed every 30 s), samples every 10 s, ${seconds} s idle window, Node ${process.version}`);
    console.log('process | RSS MB | peak RSS MB | private (RssAnon) MB | CPU % | RSS ÷ baseline');
    for (const [label, f] of rows) console.log(`${label} | ${f.rssMB} | ${f.peakRssMB} | ${f.anonMB} | ${f.cpuPercent} | ${base ? (f.rssMB / base.rssMB).toFixed(2) : '-'}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await device.down();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
