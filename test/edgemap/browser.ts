// Debian's chromium driven by playwright-core, with swiftshader so sigma's WebGL
// canvas really draws, and a fresh profile per test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--enable-unsafe-swiftshader'];

export interface OpenBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Console errors, page errors and requests to anywhere but `origin`. */
  readonly problems: string[];
  close(): Promise<void>;
}

export async function openBrowser(origin: string): Promise<OpenBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'edgemap-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, args: ARGS, viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => { problems.push(`page error: ${e.message}`); });
  page.on('request', (r) => { if (!r.url().startsWith(origin)) problems.push(`request elsewhere: ${r.url()}`); });
  return {
    context, page, problems,
    close: async () => { await context.close(); await rm(profile, { recursive: true, force: true }); },
  };
}

/** How many pixels of a PNG differ from white, and how many are near `colour` (decoded by the browser itself). */
export async function countPixels(context: BrowserContext, png: Buffer, colours: string[]): Promise<{ drawn: number; near: number[] }> {
  const scratch = await context.newPage();
  try {
    return await scratch.evaluate(async ({ b64, colours: wanted }) => {
      const g = globalThis as unknown as {
        Image: new () => { src: string; width: number; height: number; decode(): Promise<void> };
        document: { createElement(tag: 'canvas'): { width: number; height: number; getContext(kind: '2d'): { drawImage(i: unknown, x: number, y: number): void; getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } } };
      };
      const img = new g.Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = g.document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, img.width, img.height);
      const targets = wanted.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
      let drawn = 0;
      const near = targets.map(() => 0);
      for (let i = 0; i < data.length; i += 4) {
        const [r, gr, b] = [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0];
        if (r < 250 || gr < 250 || b < 250) drawn++;
        targets.forEach((t, j) => { if (Math.abs(r - (t[0] ?? 0)) + Math.abs(gr - (t[1] ?? 0)) + Math.abs(b - (t[2] ?? 0)) < 30) near[j] = (near[j] ?? 0) + 1; });
      }
      return { drawn, near };
    }, { b64: png.toString('base64'), colours });
  } finally {
    await scratch.close();
  }
}
