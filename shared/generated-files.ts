// Files generated from TypeScript sources and committed (the CRD manifests, deviceShifu's JSON
// schemas): written when they differ, or, with `check`, each stale one named with the command
// that regenerates it. A test of each kind compares the same way.
import { readFile, writeFile } from 'node:fs/promises';

/** Writes every [path, text] that differs (or only reports it, with `check`); the number of stale files. */
export async function syncGeneratedFiles(files: Iterable<readonly [string, string]>, command: string, check: boolean): Promise<number> {
  let stale = 0;
  for (const [path, text] of files) {
    const current = await readFile(path, 'utf8').catch(() => '');
    if (current === text) continue;
    if (check) {
      stale += 1;
      console.error(`${path} is out of date: run ${command}`);
    } else {
      await writeFile(path, text);
      console.log(`wrote ${path}`);
    }
  }
  return stale;
}
