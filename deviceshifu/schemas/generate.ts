// `npm run schemas:generate` writes deviceshifu/schemas/*.json from their TypeBox sources
// (render.ts); `-- --check` fails when a committed file differs (the test suite runs the same
// comparison).
import { fileURLToPath } from 'node:url';
import { syncGeneratedFiles } from '../../shared/generated-files.ts';
import { renderSchemaFiles } from './render.ts';

const dir = fileURLToPath(new URL('./', import.meta.url));
const files = renderSchemaFiles().map(([file, text]) => [`${dir}${file}`, text] as const);
const stale = await syncGeneratedFiles(files, 'npm run schemas:generate', process.argv.includes('--check'));
process.exitCode = stale === 0 ? 0 : 1;
