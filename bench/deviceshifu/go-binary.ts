// The bench's Go programs (go/*.go, standard library only), built with `go build` on first use into
// ~/.cache/edgeshifu/bench/, keyed by a hash of the source: an edited program is rebuilt, an
// unchanged one is not. Go is taken from the PATH or /usr/local/go/bin.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, readFile, rename } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE = join(homedir(), '.cache', 'edgeshifu', 'bench');
const GO_CANDIDATES = ['go', '/usr/local/go/bin/go'];

async function goCommand(): Promise<string> {
  for (const candidate of GO_CANDIDATES) {
    try {
      await run(candidate, ['version']);
      return candidate;
    } catch { /* try the next */ }
  }
  throw new Error('no Go toolchain: install Go (go on the PATH or /usr/local/go/bin/go) to build the bench\'s device, proxy and load generator');
}

/** The path of the built program `name` (bench/deviceshifu/go/<name>.go). */
export async function goBinary(name: string): Promise<string> {
  const source = new URL(`go/${name}.go`, import.meta.url).pathname;
  const hash = createHash('sha256').update(await readFile(source)).digest('hex').slice(0, 16);
  const binary = join(CACHE, `${name}-${hash}`);
  try {
    await access(binary);
    return binary;
  } catch { /* not built yet */ }
  await mkdir(CACHE, { recursive: true });
  const partial = `${binary}.partial-${String(process.pid)}`;
  await run(await goCommand(), ['build', '-trimpath', '-o', partial, source], { env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '' } });
  await rename(partial, binary);
  return binary;
}
