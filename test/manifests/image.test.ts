// The image's entrypoints, run from dist/ exactly as the Dockerfile runs them (no Docker
// engine runs here, so this is what can be tested): the ENTRYPOINT and NODE_FLAGS are read from
// the Dockerfile, /app is this checkout, and each component starts from its bundle alone (no
// node_modules beside it in the image) far enough to refuse a bad command line in its own words.
import test from 'ava';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

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
