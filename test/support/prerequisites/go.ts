// Finds a Go toolchain for building the test control plane: on the PATH, in /usr/local/go (where
// the official tarball unpacks), or in the cache. When none is there and a Go module proxy is
// configured (GOPROXY), fetches the release toolchain that proxies serve as the module
// golang.org/toolchain, and unpacks it into the cache.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, readdirSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { onPath } from './install.ts';

export const GO_VERSION = '1.26.8';

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.EDGESHIFU_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'edgeshifu');
}

/**
 * Where Go may already be, in the order searched after PATH: EDGESHIFU_GO_DIRS (colon-separated)
 * when set, else /usr/local/go/bin and the cache's toolchain.
 */
export function goCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = env.EDGESHIFU_GO_DIRS;
  if (listed !== undefined) return listed.split(':').filter((d) => d !== '');
  return ['/usr/local/go/bin', join(cacheRoot(env), `go${GO_VERSION}`, 'bin')];
}

/** The first proxy URL of a GOPROXY list ("direct" and "off" are not proxies). */
export function firstProxy(goproxy: string | undefined): string | undefined {
  const first = (goproxy ?? '').split(/[,|]/).map((p) => p.trim()).find((p) => /^https?:\/\//.test(p));
  return first?.replace(/\/+$/, '');
}

function goArch(): string {
  return process.arch === 'x64' ? 'amd64' : process.arch;
}

async function fetchToolchain(proxy: string, target: string): Promise<void> {
  const url = `${proxy}/golang.org/toolchain/@v/v0.0.1-go${GO_VERSION}.linux-${goArch()}.zip`;
  console.error(`[setup] no Go found: fetching go${GO_VERSION} from the Go module proxy (${url})`);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching the Go toolchain failed: ${response.status} ${response.statusText} (${url})`);
  const work = mkdtempSync(`${target}.part-`);
  try {
    writeFileSync(join(work, 'go.zip'), Buffer.from(await response.arrayBuffer()));
    const unzip = spawnSync('unzip', ['-q', 'go.zip'], { cwd: work, encoding: 'utf8' });
    if (unzip.status !== 0) throw new Error(`unzip of the Go toolchain failed: ${unzip.stderr}`);
    const root = join(work, 'golang.org');
    const unpacked = readdirSync(root).find((d) => d.startsWith('toolchain@'));
    if (unpacked === undefined) throw new Error('the Go toolchain archive has no golang.org/toolchain@… folder');
    renameSync(join(root, unpacked), target);
    for (const dir of [join(target, 'bin'), join(target, 'pkg', 'tool', `linux_${goArch()}`)]) {
      for (const file of readdirSync(dir)) chmodSync(join(dir, file), 0o755);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The PATH with a Go toolchain on it, fetching one into the cache if none is found and GOPROXY
 * names a proxy. Without either, the PATH is returned as it is and build.sh says what to install.
 */
export async function pathWithGo(path: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (onPath('go', path)) return path;
  const found = goCandidates(env).find((dir) => existsSync(join(dir, 'go')));
  if (found !== undefined) return `${found}:${path}`;
  const proxy = firstProxy(env.GOPROXY);
  if (proxy === undefined) return path;
  const target = join(cacheRoot(env), `go${GO_VERSION}`);
  mkdirSync(cacheRoot(env), { recursive: true });
  await fetchToolchain(proxy, target);
  return `${join(target, 'bin')}:${path}`;
}
