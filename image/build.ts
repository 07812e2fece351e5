// `npm run image:build`: the one edgeshifu image as an OCI archive, built on this machine from the
// Dockerfile: its build stage's commands run here, its runtime stage's files, environment, user
// and entrypoint are copied into the image, over a base made here from the npm `node` package's
// binary (see image/README.md).
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { readDockerfile, type Dockerfile, type Stage } from './dockerfile.ts';
import { layerFromTree, writeOciArchive, type ImageConfig } from './oci.ts';
import { BASE_ENV, BUSYBOX, makeAppTree, makeBaseTree } from './rootfs.ts';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '..');
export const DEFAULT_ARCHIVE = join(REPO, 'dist', 'image', 'edgeshifu.oci.tar');
const NODE_BINARY = join(REPO, 'node_modules', 'node', 'bin', 'node');

/** The image name the manifests pin (manifests/base/kustomization.yaml), so pods find it locally. */
export async function imageName(): Promise<string> {
  const doc = parseYaml(await readFile(join(REPO, 'manifests', 'base', 'kustomization.yaml'), 'utf8')) as { images?: { name: string; newTag?: string }[] };
  const image = doc.images?.[0];
  if (image === undefined) throw new Error('manifests/base/kustomization.yaml pins no image');
  return `${image.name}:${image.newTag ?? 'latest'}`;
}

/** The build stage's commands, run in the repository; `npm ci` is skipped: node_modules is that install. */
async function runBuildStage(build: Stage, log: (line: string) => void): Promise<void> {
  for (const command of build.run) {
    if (/^npm ci\b/.test(command)) continue;
    log(`[image] build stage: ${command}`);
    await run('sh', ['-c', command], { cwd: REPO, maxBuffer: 1 << 26 });
  }
}

function imageConfig(dockerfile: Dockerfile): ImageConfig {
  const { runtime } = dockerfile;
  const env = new Map([...BASE_ENV, ...runtime.env]);
  return {
    ...(runtime.user !== undefined && { User: runtime.user }),
    Env: [...env].map(([k, v]) => `${k}=${v}`),
    ...(runtime.entrypoint !== undefined && { Entrypoint: [...runtime.entrypoint] }),
    ...(runtime.cmd !== undefined && { Cmd: [...runtime.cmd] }),
    ...(runtime.workdir !== undefined && { WorkingDir: runtime.workdir }),
    ExposedPorts: Object.fromEntries(runtime.expose.map((p) => [p.includes('/') ? p : `${p}/tcp`, {}])),
  };
}

async function checkTools(): Promise<void> {
  await access(BUSYBOX).catch(() => { throw new Error(`${BUSYBOX} is missing: the image's /bin/sh is Debian's static busybox. Install it with 'apt-get install busybox-static'.`); });
  await access(NODE_BINARY).catch(() => { throw new Error(`${NODE_BINARY} is missing: run 'npm ci' first (the npm node package brings the binary the image runs).`); });
}

export interface BuiltImage { readonly archive: string; readonly name: string; readonly bytes: number; readonly unpackedBytes: number }

export async function buildImage(archive = DEFAULT_ARCHIVE, log: (line: string) => void = console.error): Promise<BuiltImage> {
  await checkTools();
  const dockerfile = await readDockerfile(join(REPO, 'Dockerfile'));
  const build = dockerfile.stages.find((s) => dockerfile.runtime.copies.some((c) => c.stage === s.name));
  if (build === undefined) throw new Error('the Dockerfile\'s runtime stage copies from no stage');
  await runBuildStage(build, log);
  const work = await mkdtemp(join(tmpdir(), 'edgeshifu-image-'));
  try {
    const base = join(work, 'base');
    const app = join(work, 'app');
    await makeBaseTree(base, NODE_BINARY);
    await makeAppTree(app, REPO, { build, runtime: dockerfile.runtime });
    log(`[image] packing layers (base stands in for ${dockerfile.runtime.from})`);
    const layers = [await layerFromTree(base, `base made here for ${dockerfile.runtime.from}: busybox-static, node ${process.versions.node}, glibc`),
      await layerFromTree(app, 'COPY --from=build (Dockerfile runtime stage)')];
    const name = await imageName();
    await mkdir(join(archive, '..'), { recursive: true });
    const bytes = await writeOciArchive(archive, { name, config: imageConfig(dockerfile), layers });
    const { stdout } = await run('du', ['-sb', base, app]);
    const unpackedBytes = stdout.split('\n').reduce((sum, line) => sum + (Number(line.split('\t')[0]) || 0), 0);
    return { archive, name, bytes, unpackedBytes };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: DEFAULT_ARCHIVE } } });
  const built = await buildImage(resolve(values.out));
  const mib = (n: number): string => (n / 1024 / 1024).toFixed(1);
  console.log(`${built.archive}: ${built.name}, ${mib(built.bytes)} MiB archive, ${mib(built.unpackedBytes)} MiB unpacked`);
}
