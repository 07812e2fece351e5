// What a bundled component loads at start, read from esbuild's metafile: the chunks its entry
// imports statically (dynamic imports load only on demand), and the packages in them.
import { build, type Metafile } from 'esbuild';

/** The component bundled as the image bundles it, in memory. */
export async function bundleMetafile(component: string, main: string): Promise<Metafile> {
  const result = await build({
    entryPoints: { [component]: main },
    bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node24',
    // node-opcua's lock library imports it only for a provider it does not use by default (an optional peer)
    external: ['proper-lockfile'],
    outdir: `/nonexistent/${component}-footprint`, write: false, metafile: true, logLevel: 'silent',
  });
  return result.metafile;
}

/** Output files reached from the component's entry through static imports only. */
export function loadedAtStart(meta: Metafile, component: string): Array<Metafile['outputs'][string]> {
  const entry = Object.keys(meta.outputs).find((path) => path.endsWith(`/${component}.js`));
  const seen = new Set<string>();
  const queue = entry === undefined ? [] : [entry];
  while (queue.length > 0) {
    const path = queue.pop() ?? '';
    if (seen.has(path)) continue;
    seen.add(path);
    for (const imported of meta.outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement' && imported.external !== true) queue.push(imported.path);
    }
  }
  return [...seen].map((path) => meta.outputs[path]).filter((o) => o !== undefined);
}

/** The npm packages whose code those outputs hold. */
export function packagesIn(outputs: ReadonlyArray<Metafile['outputs'][string]>): Set<string> {
  return new Set(outputs.flatMap((o) => Object.keys(o.inputs)).map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1]).filter((p) => p !== undefined));
}
