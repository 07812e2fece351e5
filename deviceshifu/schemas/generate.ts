// `npm run schemas:generate` writes deviceshifu/schemas/*.json from their TypeBox sources
// (render.ts); `-- --check` fails when a committed file differs (the test suite runs the same
// comparison).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderSchemaFiles } from './render.ts';

const dir = fileURLToPath(new URL('./', import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, text] of renderSchemaFiles()) {
  const path = `${dir}${file}`;
  const current = await readFile(path, 'utf8').catch(() => '');
  if (current === text) continue;
  if (check) {
    stale += 1;
    console.error(`${path} is out of date: run npm run schemas:generate`);
  } else {
    await writeFile(path, text);
    console.log(`wrote ${path}`);
  }
}
process.exitCode = stale === 0 ? 0 : 1;
