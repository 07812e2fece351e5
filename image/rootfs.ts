// The two layers of the image: a base made here standing in for the Node image the Dockerfile
// names (no registry serves it on this machine), and the application files the runtime stage
// copies from the build stage.
import { execFile } from 'node:child_process';
import { chmod, copyFile, cp, mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { RuntimeStage, Stage } from './dockerfile.ts';

const run = promisify(execFile);

/** Busybox built statically (Debian's busybox-static): the base's /bin/sh, as in node:*-alpine. */
export const BUSYBOX = '/bin/busybox';
/** Where the official Node images keep node; PATH finds it there. */
export const NODE_IN_IMAGE = '/usr/local/bin/node';
export const BASE_ENV: ReadonlyMap<string, string> = new Map([['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']]);
export const NONROOT = 65532;

/** The shared libraries `binary` loads (ldd), each as the path it is loaded by. */
async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await run('ldd', [binary]);
  const paths: string[] = [];
  for (const line of stdout.split('\n')) {
    const path = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1];
    if (path !== undefined) paths.push(path);
  }
  return paths;
}

async function place(root: string, source: string, target: string, mode: number): Promise<void> {
  const at = join(root, target);
  await mkdir(dirname(at), { recursive: true });
  await copyFile(await realpath(source), at);
  await chmod(at, mode);
}

/** The base: static busybox as /bin/sh, the npm `node` package's binary, the glibc it links, users. */
export async function makeBaseTree(root: string, nodeBinary: string): Promise<void> {
  await place(root, BUSYBOX, '/bin/busybox', 0o755);
  await symlink('busybox', join(root, 'bin', 'sh'));
  await place(root, nodeBinary, NODE_IN_IMAGE, 0o755);
  for (const lib of await sharedLibraries(nodeBinary)) await place(root, lib, lib, 0o755);
  await mkdir(join(root, 'etc'), { recursive: true });
  await writeFile(join(root, 'etc', 'passwd'), `root:x:0:0:root:/root:/bin/sh\nnonroot:x:${NONROOT}:${NONROOT}:nonroot:/home/nonroot:/sbin/nologin\n`);
  await writeFile(join(root, 'etc', 'group'), `root:x:0:\nnonroot:x:${NONROOT}:\n`);
  await mkdir(join(root, 'tmp'));
  await chmod(join(root, 'tmp'), 0o1777);
}

/** A path under the build stage's WORKDIR, as a path in the repository. */
export function buildStagePath(build: Stage, source: string): string {
  const workdir = build.workdir ?? '/';
  const inRepo = relative(workdir, source);
  if (inRepo.startsWith('..')) throw new Error(`COPY --from=${build.name ?? ''} ${source}: outside the build stage's WORKDIR ${workdir}`);
  return inRepo;
}

/** The application layer: the runtime stage's WORKDIR and every COPY --from the build stage. */
export async function makeAppTree(root: string, repo: string, stages: { build: Stage; runtime: RuntimeStage }): Promise<void> {
  if (stages.runtime.workdir !== undefined) await mkdir(join(root, stages.runtime.workdir), { recursive: true });
  for (const copy of stages.runtime.copies) {
    if (copy.stage !== stages.build.name) throw new Error(`COPY --from=${copy.stage}: the image build here knows only the stage "${stages.build.name ?? ''}"`);
    await cp(join(repo, buildStagePath(stages.build, copy.source)), join(root, copy.target), { recursive: true });
  }
  // as COPY without --chown leaves them: readable by everyone, owned by root (the tar sets 0:0)
  await run('chmod', ['-R', 'u=rwX,go=rX', root]);
}
