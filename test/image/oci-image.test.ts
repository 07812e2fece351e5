// The image built here (npm run image:build) against the Dockerfile it follows: entrypoint, command,
// user, working directory, environment (NODE_FLAGS read from the Dockerfile, never written here),
// exposed port and every file the runtime stage copies. Then the unpacked image runs on its own
// (chroot, the image's user and environment): each component starts from the image's node and
// bundles and refuses a bad command line in its own words.
import test from 'ava';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { buildImage } from '../../image/build.ts';
import { readDockerfile } from '../../image/dockerfile.ts';
import { openOciArchive, type OpenedImage } from '../../image/oci.ts';
import { buildStagePath } from '../../image/rootfs.ts';

const run = promisify(execFile);
const ROOT = process.cwd();

async function tree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), createHash('sha256').update(await readFile(path)).digest('hex'));
  }
  return files;
}

let work: string;
let image: OpenedImage;
let rootfs: string;
test.before(async () => {
  work = await mkdtemp(join(tmpdir(), 'edgeshifu-image-test-'));
  const built = await buildImage(join(work, 'image.oci.tar'), () => undefined);
  image = await openOciArchive(built.archive);
  rootfs = join(work, 'rootfs');
  await run('mkdir', [rootfs]);
  await image.unpack(rootfs);
});
test.after.always(async () => {
  await image.close();
  await rm(work, { recursive: true, force: true });
});

test('the image agrees with the Dockerfile on entrypoint, command, user, workdir, port and environment', async (t) => {
  const { runtime } = await readDockerfile(join(ROOT, 'Dockerfile'));
  t.is(image.name, 'ghcr.io/edgeshifu/edgeshifu:0.1.0', 'the name the manifests pin, so pods find it without a registry');
  t.deepEqual(image.config.Entrypoint, runtime.entrypoint);
  t.deepEqual(image.config.Cmd, runtime.cmd);
  t.is(image.config.User, runtime.user);
  t.is(image.config.WorkingDir, runtime.workdir);
  t.deepEqual(Object.keys(image.config.ExposedPorts ?? {}), runtime.expose.map((p) => `${p}/tcp`));
  t.true(runtime.env.has('NODE_FLAGS'), 'the Dockerfile sets NODE_FLAGS');
  for (const [key, value] of runtime.env) t.true(image.config.Env?.includes(`${key}=${value}`), `${key}=${value} in the image`);
});

test('every file the runtime stage copies is in the image, byte for byte, owned by root and readable by its user', async (t) => {
  const dockerfile = await readDockerfile(join(ROOT, 'Dockerfile'));
  const build = dockerfile.stages.find((s) => s.name === dockerfile.runtime.copies[0]?.stage);
  t.truthy(build);
  t.true(dockerfile.runtime.copies.length >= 2, 'bundles and the edgeMap page');
  for (const copy of dockerfile.runtime.copies) {
    const expected = await tree(join(ROOT, buildStagePath(build!, copy.source)));
    t.true(expected.size > 0, copy.source);
    t.deepEqual(await tree(join(rootfs, copy.target)), expected, `${copy.source} -> ${copy.target}`);
    const info = await stat(join(rootfs, copy.target));
    t.is(info.uid, 0);
    t.is(info.mode & 0o005, 0o005, `${copy.target} readable and searchable by others`);
  }
  const nodeBinary = await stat(join(rootfs, 'usr/local/bin/node'));
  t.is(nodeBinary.mode & 0o001, 0o001, 'node executable by the image user');
});

async function runInImage(args: string[]): Promise<{ code: number; output: string }> {
  const env = image.config.Env ?? [];
  const [uid, gid] = (image.config.User ?? '0:0').split(':');
  const argv = ['-i', ...env, 'chroot', `--userspec=${uid ?? ''}:${gid ?? uid ?? ''}`, rootfs, ...(image.config.Entrypoint ?? []), ...args];
  try {
    const { stdout, stderr } = await run('env', argv, { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

test('the unpacked image runs every component as its own user from its own node and bundles', async (t) => {
  const cases: ReadonlyArray<readonly [string, string[], RegExp]> = [
    ['controller', ['--no-such-flag'], /"component":"controller".*Unknown option '--no-such-flag'/],
    ['deviceshifu', ['--no-such-flag'], /"component":"deviceshifu".*Unknown option '--no-such-flag'/],
    ['shifud', [], /the node name is missing: set NODE_NAME from the downward API/],
    ['mockdevice', ['kettle'], /no mock device \\"kettle\\"; choose one of thermometer/],
  ];
  for (const [component, args, message] of cases) {
    const result = await runInImage([component, ...args]);
    t.is(result.code, 2, `${component}: ${result.output}`);
    t.regex(result.output, message, component);
  }
});
