// What the bundled controller loads at start, read from esbuild's metafile: the chunks its entry
// imports statically (dynamic imports load only on demand), and the packages in them. express,
// prom-client and DRONE's MQTT code cost it ~24 MB of RSS together (controller/README.md, Footprint).
import test from 'ava';
import { build, type Metafile } from 'esbuild';

async function metafile(): Promise<Metafile> {
  const result = await build({
    entryPoints: { controller: new URL('../../controller/main.ts', import.meta.url).pathname },
    bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node24',
    outdir: '/nonexistent/controller-footprint', write: false, metafile: true, logLevel: 'silent',
  });
  return result.metafile;
}

/** Output files reached from the entry through static imports only. */
function loadedAtStart(meta: Metafile): Array<Metafile['outputs'][string]> {
  const entry = Object.keys(meta.outputs).find((path) => path.endsWith('/controller.js'));
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

test('at start, the controller loads neither client-node, express, prom-client, mqtt nor aedes; DRONE waits behind a dynamic import', async (t) => {
  const meta = await metafile();
  const outputs = loadedAtStart(meta);
  const packages = new Set(outputs.flatMap((o) => Object.keys(o.inputs)).map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1]).filter((p) => p !== undefined));
  t.true(packages.has('yaml') && packages.has('pino') && packages.has('graphology'), `the packages it does need are seen: ${[...packages].join(', ')}`);
  for (const heavy of ['@kubernetes/client-node', 'express', 'prom-client', 'mqtt', 'aedes', 'undici']) t.false(packages.has(heavy), `${heavy} is loaded at start`);
  const atStart = new Set(outputs.flatMap((o) => Object.keys(o.inputs)));
  t.true(atStart.has('controller/server.ts') && atStart.has('shared/prometheus.ts'));
  t.false(atStart.has('controller/offload/manager.ts'), 'the Offloader loads only with --drone-cluster');
  const all = new Set(Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs)));
  t.true(all.has('controller/offload/manager.ts'), 'the bundle still holds it for when it is needed');
});
