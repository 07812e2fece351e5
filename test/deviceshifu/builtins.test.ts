// Node's own modules a bundled deviceShifu loads. An ESM import of a builtin makes Node build its
// namespace, which reads every lazy export: node:fs's reads `fs.promises`, and node:fs/promises loads
// Node's readline interface, REPL history and os with it. deviceShifu uses none of them (deviceshifu/README.md, "What deviceShifu adds over its
// floor"), so it takes builtins with process.getBuiltinModule and reads files through the callback API.
import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { DEVICE_SHIFU_NODE_FLAGS } from '../../controller/bundle/node-flags.ts';
import { bundleMetafile, loadedAtStart } from '../support/footprint.ts';
import { waitFor } from '../support/wait.ts';
import { ConfigDir } from './support/configdir.ts';
import { mockDevice } from './support/mocks.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const UNUSED = ['NativeModule internal/fs/promises', 'NativeModule internal/readline/interface', 'NativeModule internal/repl/history'];

/** deviceShifu bundled into `dir` as `npm run build:bundle` bundles it, with the banner package.json gives it. */
async function bundle(dir: string): Promise<void> {
  const script = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['build:bundle'] ?? '';
  const banner = /--banner:js="([^"]*)"/.exec(script)?.[1];
  if (banner === undefined) throw new Error(`build:bundle has no --banner:js: ${script}`);
  await build({ entryPoints: { deviceshifu: join(ROOT, 'deviceshifu/main.ts') }, bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node24', external: ['node-opcua-*', 'serialport'], banner: { js: banner }, outdir: dir, logLevel: 'silent' });
  await build({ entryPoints: [join(ROOT, 'shared/yaml-bundle-entry.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node24', outfile: join(dir, 'yaml.cjs'), logLevel: 'silent' });
}

test('a bundled deviceShifu that starts, serves a request and stops never loads fs/promises, the readline interface or REPL history', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'deviceshifu-builtins-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await bundle(dir);
  // Node's module list as the process ends: everything it loaded in its life
  await writeFile(join(dir, 'modules.mjs'), "process.on('exit', () => { process.getBuiltinModule('node:fs').writeSync(2, `\\nMODULES ${JSON.stringify(process.moduleLoadList)}\\n`); });\n");
  const thermometer = await mockDevice(t, 'thermometer');
  const config = await ConfigDir.create(t, { instructions: 'instructions:\n  read_value:\n    readWrite: R\n' });
  const edgedevice = join(dir, 'edgedevice.yaml');
  await writeFile(edgedevice, `apiVersion: shifu.edgenesis.io/v1alpha1\nkind: EdgeDevice\nmetadata: {name: builtins, namespace: devices}\nspec: {sku: X, connection: Ethernet, address: "${thermometer.address}", protocol: HTTP}\n`);
  const child = spawn(process.execPath, [...DEVICE_SHIFU_NODE_FLAGS, '--import', join(dir, 'modules.mjs'), join(dir, 'deviceshifu.js'), '--config-dir', config.dir, '--edgedevice-file', edgedevice, '--port', '0'], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => { child.kill('SIGKILL'); });
  let output = '';
  child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  const listening = (): string | undefined => output.split('\n').filter((l) => l.includes('"msg":"deviceShifu listening"')).map((l) => (JSON.parse(l) as { address: string }).address)[0];
  const address = await waitFor('deviceShifu listening', listening, { abortIf: () => child.exitCode === null ? undefined : `exited ${String(child.exitCode)}: ${output}` });
  const status = await waitFor('the device answered through deviceShifu', async () => { const res = await fetch(`http://${address}/read_value`); await res.text(); return res.status === 200 ? res.status : undefined; });
  t.is(status, 200);
  child.kill('SIGTERM');
  await exited;
  const modules = JSON.parse(/^MODULES (.*)$/m.exec(output)?.[1] ?? '[]') as string[];
  t.true(modules.includes('NativeModule http') && modules.includes('NativeModule internal/fs/watchers'), `the list is the process's: ${output.slice(-2000)}`);
  t.deepEqual(UNUSED.filter((m) => modules.includes(m)), []);
});

test('no module of deviceShifu imports a builtin whose namespace loads what it does not use, at start or in Kubernetes mode', async (t) => {
  const meta = await bundleMetafile('deviceshifu', new URL('../../deviceshifu/main.ts', import.meta.url).pathname);
  const kubeModes = ['shared/kube/client.ts', 'deviceshifu/kube/edgedevice-watch.ts', 'deviceshifu/kube/status.ts', 'deviceshifu/kube/secrets.ts', 'deviceshifu/kube/telemetry-services.ts', 'deviceshifu/standalone/edgedevice-file.ts'];
  const atStart = new Set(loadedAtStart(meta, 'deviceshifu').flatMap((o) => Object.keys(o.inputs)));
  const imports = Object.entries(meta.inputs).filter(([input]) => atStart.has(input) || kubeModes.includes(input))
    .flatMap(([input, i]) => i.imports.filter((b) => b.external === true && b.kind === 'import-statement').map((b) => `${input} ${b.path}`));
  t.true(imports.some((i) => i.endsWith(' node:path')), `the ESM imports of builtins are seen: ${imports.join(', ')}`);
  for (const builtin of ['fs', 'fs/promises', 'module', 'os', 'perf_hooks', 'url', 'util', 'v8', 'vm']) t.deepEqual(imports.filter((i) => i.endsWith(` node:${builtin}`)), [], `an ESM import of node:${builtin}`);
});
