// `npm run crds:generate` writes manifests/crds from the TypeBox schemas; `-- --check` fails when
// the committed files differ (the test suite runs the same comparison).
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderCrdManifests } from './render.ts';

const dir = fileURLToPath(new URL('../../manifests/crds/', import.meta.url));
const check = process.argv.includes('--check');
await mkdir(dir, { recursive: true });
let stale = 0;
for (const [file, text] of renderCrdManifests()) {
  const path = `${dir}${file}`;
  const current = await readFile(path, 'utf8').catch(() => '');
  if (current === text) continue;
  if (check) {
    stale += 1;
    console.error(`${path} is out of date: run npm run crds:generate`);
  } else {
    await writeFile(path, text);
    console.log(`wrote ${path}`);
  }
}
process.exitCode = stale === 0 ? 0 : 1;
