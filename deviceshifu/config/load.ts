// Reads the mounted ConfigMap directory: one file per key. Kubernetes mounts keys as symlinks into
// a `..data` directory it swaps atomically on update, so the dot entries are skipped here.
import { join } from 'node:path';
import { EdgeshifuError } from '../../shared/errors.ts';
import { readDirectory, readText, statOf } from '../../shared/files.ts';
import { parseConfig } from './parse.ts';
import type { DeviceShifuConfig } from './types.ts';

export async function readConfigFiles(dir: string): Promise<Record<string, string>> {
  let names: string[];
  try {
    names = await readDirectory(dir);
  } catch (err) {
    throw new EdgeshifuError('invalid', `config directory ${dir} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  const files: Record<string, string> = {};
  for (const name of names.filter((n) => !n.startsWith('.')).sort()) {
    const path = join(dir, name);
    const info = await statOf(path).catch(() => undefined);
    if (info?.isFile() === true) files[name] = await readText(path);
  }
  return files;
}

export async function loadConfigDir(dir: string): Promise<DeviceShifuConfig> {
  return parseConfig(await readConfigFiles(dir));
}
