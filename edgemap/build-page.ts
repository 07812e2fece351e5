// Bundles the edgeMap page (edgemap/page/main.ts with sigma and graphology) into one script and
// copies its HTML and CSS beside it: everything the page needs, served by the controller itself
// (works offline, no CDN). Run by `npm run build:page` (edgemap/page/build.ts).
import { build } from 'esbuild';
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PageFile } from './http/page-files.ts';

const PAGE_SOURCE = fileURLToPath(new URL('./page/', import.meta.url));

export interface BuiltPage {
  readonly outDir: string;
  /** Each file written and its size in bytes. */
  readonly files: Readonly<Record<PageFile, number>>;
}

export async function buildEdgeMapPage(outDir: string): Promise<BuiltPage> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(PAGE_SOURCE, 'main.ts')],
    outfile: join(outDir, 'edgemap.js'),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome120', 'firefox120', 'safari17'],
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: false,
    legalComments: 'eof',
    logLevel: 'silent',
  });
  await copyFile(join(PAGE_SOURCE, 'index.html'), join(outDir, 'index.html'));
  await copyFile(join(PAGE_SOURCE, 'edgemap.css'), join(outDir, 'edgemap.css'));
  const size = async (file: PageFile): Promise<number> => (await stat(join(outDir, file))).size;
  return { outDir, files: { 'index.html': await size('index.html'), 'edgemap.js': await size('edgemap.js'), 'edgemap.css': await size('edgemap.css') } };
}
