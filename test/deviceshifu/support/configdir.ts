// ConfigMaps as deviceShifu sees them: the data of a manifest, written into a directory laid out
// the way the kubelet does it (`..<timestamp>/` holding the files, `..data` → it, and one symlink
// per key → `..data/<key>`), with an atomic `..data` swap for updates.
import { mkdtemp, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ExecutionContext } from 'ava';

export async function configMapData(manifestPath: URL | string): Promise<Record<string, string>> {
  const manifest = parse(await readFile(manifestPath, 'utf8')) as { data: Record<string, string> };
  return manifest.data;
}

export class ConfigDir {
  readonly dir: string;
  private generation = 0;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async create(t: ExecutionContext, data: Readonly<Record<string, string>>): Promise<ConfigDir> {
    const dir = await mkdtemp(join(tmpdir(), 'deviceshifu-config-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const config = new ConfigDir(dir);
    await config.update(data);
    return config;
  }

  /** Writes a new generation and swaps `..data` to it in one rename, as the kubelet does. */
  async update(data: Readonly<Record<string, string>>): Promise<void> {
    this.generation += 1;
    const generationDir = join(this.dir, `..gen_${this.generation}`);
    await mkdir(generationDir);
    for (const [key, text] of Object.entries(data)) await writeFile(join(generationDir, key), text);
    const tmpLink = join(this.dir, '..data_tmp');
    await symlink(`..gen_${this.generation}`, tmpLink);
    await rename(tmpLink, join(this.dir, '..data'));
    for (const key of Object.keys(data)) {
      await symlink(join('..data', key), join(this.dir, key)).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      });
    }
    if (this.generation > 1) await rm(join(this.dir, `..gen_${this.generation - 1}`), { recursive: true, force: true });
  }
}
