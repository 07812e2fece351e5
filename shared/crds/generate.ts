// `npm run crds:generate` writes manifests/crds from the TypeBox schemas; `-- --check` fails when
// the committed files differ (the test suite runs the same comparison).
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { syncGeneratedFiles } from '../generated-files.ts';
import { renderCrdManifests } from './render.ts';

const dir = fileURLToPath(new URL('../../manifests/crds/', import.meta.url));
await mkdir(dir, { recursive: true });
const files = [...renderCrdManifests()].map(([file, text]) => [`${dir}${file}`, text] as const);
const stale = await syncGeneratedFiles(files, 'npm run crds:generate', process.argv.includes('--check'));
process.exitCode = stale === 0 ? 0 : 1;
