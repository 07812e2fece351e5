// The built page (edgemap/page/build.ts writes it): served from a folder, or 503 saying how to
// build it. Only the files the build writes are served, by fixed name: no path from the request
// reaches the file system.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';

export const PAGE_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'edgemap.js': 'text/javascript; charset=utf-8',
  'edgemap.css': 'text/css; charset=utf-8',
} as const;
export type PageFile = keyof typeof PAGE_FILES;

export const BUILD_COMMAND = 'npm run build:page';

// No inline script or style, nothing from another origin (works offline, and a device name can
// never become markup that runs).
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** dist/edgemap-page at the repository root, whether this runs from source or from dist/. */
export function defaultPageDir(): string {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  return basename(root) === 'dist' ? join(root, 'edgemap-page') : join(root, 'dist', 'edgemap-page');
}

export async function sendPageFile(res: ServerResponse, dir: string, file: PageFile): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(join(dir, file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
      .end(`the edgeMap page has not been built: run \`${BUILD_COMMAND}\` (tsx edgemap/page/build.ts), then reload\n`);
    return;
  }
  res.writeHead(200, { 'content-type': PAGE_FILES[file], 'content-length': body.length, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' });
  res.end(body);
}
