// The image's entrypoints, run from dist/ exactly as the Dockerfile runs them (no Docker
// engine runs here, so this is what can be tested): the ENTRYPOINT and NODE_FLAGS are read from
// the Dockerfile, /app is this checkout, and each component starts from its bundle alone (no
// node_modules beside it in the image) far enough to refuse a bad command line in its own words.
import test from 'ava';
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);
const ROOT = process.cwd();

interface Entrypoint {
  readonly argv: string[];
  readonly nodeFlags: string;
  readonly bundleDir: string;
}

async function entrypoint(app: string): Promise<Entrypoint> {
  const dockerfile = await readFile(`${ROOT}/Dockerfile`, 'utf8');
  const line = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  const flags = /NODE_FLAGS="([^"]*)"/.exec(dockerfile)?.[1];
  if (line === undefined || flags === undefined) throw new Error('the Dockerfile has no ENTRYPOINT in exec form or no NODE_FLAGS');
  const argv = (JSON.parse(line) as string[]).map((a) => a.replaceAll('/app/', `${app}/`));
  return { argv, nodeFlags: flags, bundleDir: /COPY --from=build \/src\/(dist\/bundle) /.exec(dockerfile)?.[1] ?? '' };
}

async function start(image: Entrypoint, component: string, args: string[]): Promise<{ code: number; output: string }> {
  const [shell, ...rest] = image.argv;
  try {
    const { stdout, stderr } = await run(shell ?? '/bin/sh', [...rest, component, ...args], { env: { PATH: process.env.PATH, NODE_FLAGS: image.nodeFlags }, timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

test.serial('every component starts from its bundle the way the image starts it, and refuses a bad command line saying what to fix', async (t) => {
  const built = await run('npm', ['run', '-s', 'build:bundle'], { cwd: ROOT, timeout: 300_000 });
  t.truthy(built);
  // /app as in the image: the bundles and nothing else (no node_modules to fall back on)
  const app = await mkdtemp(join(tmpdir(), 'edgeshifu-image-'));
  t.teardown(() => rm(app, { recursive: true, force: true }));
  await cp(join(ROOT, 'dist', 'bundle'), join(app, 'dist', 'bundle'), { recursive: true });
  const image = await entrypoint(app);
  t.is(image.bundleDir, 'dist/bundle', 'the image carries the bundles built by npm run build:bundle');
  const cases: ReadonlyArray<readonly [string, string[], RegExp]> = [
    ['controller', ['--no-such-flag'], /"component":"controller".*Unknown option '--no-such-flag'/],
    ['deviceshifu', ['--no-such-flag'], /"component":"deviceshifu".*Unknown option '--no-such-flag'/],
    ['shifud', [], /the node name is missing: set NODE_NAME from the downward API/],
    ['mockdevice', ['kettle'], /no mock device \\"kettle\\"; choose one of thermometer/],
  ];
  for (const [component, args, message] of cases) {
    const result = await start(image, component, args);
    t.is(result.code, 2, `${component} exits 2, the code of every component for configuration to fix`);
    t.regex(result.output, message, component);
    t.notRegex(result.output, /Cannot find (module|package)/, `${component} needs nothing outside its bundle`);
  }
});

test.serial('deviceShifu from its bundle alone reads YAML through dist/bundle/yaml.cjs: ConfigMap keys, their line-numbered errors, the EdgeDevice file', async (t) => {
  // the bundle the test above built; yaml is not in deviceShifu's module graph but a file it loads for a moment (shared/yaml.ts)
  const app = await mkdtemp(join(tmpdir(), 'edgeshifu-image-yaml-'));
  t.teardown(() => rm(app, { recursive: true, force: true }));
  await cp(join(ROOT, 'dist', 'bundle'), join(app, 'dist', 'bundle'), { recursive: true });
  const config = join(app, 'config');
  await mkdir(config);
  await writeFile(join(config, 'instructions'), 'instructions:\n  read_value:\n    readWrite: X\n');
  const edgedevice = join(app, 'edgedevice.yaml');
  await writeFile(edgedevice, 'apiVersion: shifu.edgenesis.io/v1alpha1\nkind: EdgeDevice\nmetadata: {name: edgedevice-yaml, namespace: devices}\nspec: {sku: X, connection: Ethernet, address: "127.0.0.1:1"}\n');
  const image = await entrypoint(app);
  const [shell, ...rest] = image.argv;
  const child = spawn(shell ?? '/bin/sh', [...rest, 'deviceshifu', '--config-dir', config, '--edgedevice-file', edgedevice, '--port', '0'], { env: { PATH: process.env.PATH, NODE_FLAGS: image.nodeFlags }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  t.teardown(() => { child.kill('SIGKILL'); });
  await waitFor('deviceShifu listening', () => output.includes('"msg":"deviceShifu listening"') ? true : undefined, { abortIf: () => child.exitCode === null ? undefined : `exited ${String(child.exitCode)}: ${output}` });
  t.regex(output, /instructions line 3: instructions\.instructions\.read_value\.readWrite must be one of/, 'an error in a key says which key and line (the parsed document kept its positions)');
  t.regex(output, /edgedevice\.yaml: EdgeDevice edgedevice-yaml is invalid: spec\.protocol is required/, 'the EdgeDevice file was parsed (its name read) and checked');
  t.notRegex(output, /Cannot find (module|package)/);
});
