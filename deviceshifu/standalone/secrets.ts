// Standalone mode's Secrets: `<dir>/<name>/<key>` files, the layout of a mounted Secret volume.
import { join } from 'node:path';
import { EdgeshifuError } from '../../shared/errors.ts';
import { readDirectory, readText } from '../../shared/files.ts';
import type { SecretReader } from '../drivers/driver.ts';

export function fileSecrets(dir: string | undefined): SecretReader {
  return async (name) => {
    if (dir === undefined) throw new EdgeshifuError('invalid', `the EdgeDevice names Secret ${name}, but standalone mode has no --secrets-dir`);
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name)) throw new EdgeshifuError('invalid', `"${name}" is not a valid Secret name`);
    const secretDir = join(dir, name);
    const keys = await readDirectory(secretDir).catch(() => { throw new EdgeshifuError('not-found', `Secret ${name} not found in ${dir}`); });
    const entries = await Promise.all(keys.filter((k) => !k.startsWith('.')).map(async (k) => [k, (await readText(join(secretDir, k))).trim()] as const));
    return Object.fromEntries(entries);
  };
}
