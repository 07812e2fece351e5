// What the bundled deviceShifu loads at start, read from esbuild's metafile: the chunks its entry
// imports statically (dynamic imports load only on demand), and the packages and Node modules in
// them. Each one ruled out here cost megabytes of RSS against a 50 MB budget (deviceshifu/README.md).
import test from 'ava';
import { build, type Metafile } from 'esbuild';

async function metafile(): Promise<Metafile> {
  const result = await build({
    entryPoints: { deviceshifu: new URL('../../deviceshifu/main.ts', import.meta.url).pathname },
    bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node24',
    outdir: '/nonexistent/deviceshifu-footprint', write: false, metafile: true, logLevel: 'silent',
  });
  return result.metafile;
}

/** Output files reached from the entry through static imports only. */
function loadedAtStart(meta: Metafile): Array<Metafile['outputs'][string]> {
  const entry = Object.keys(meta.outputs).find((path) => path.endsWith('/deviceshifu.js'));
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

test('at start, deviceShifu loads neither client-node, express, prom-client nor mqtt, and no ESM import of node:http(s)', async (t) => {
  const meta = await metafile();
  const outputs = loadedAtStart(meta);
  t.true(outputs.length > 1);
  const packages = new Set(outputs.flatMap((o) => Object.keys(o.inputs)).map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1]).filter((p) => p !== undefined));
  t.true(packages.has('yaml') && packages.has('pino'), `the packages it does need are seen: ${[...packages].join(', ')}`);
  for (const heavy of ['@kubernetes/client-node', 'express', 'prom-client', 'mqtt', 'undici']) t.false(packages.has(heavy), `${heavy} is loaded at start`);
  // an ESM import of node:http builds its namespace, whose lazy WebSocket getter loads undici
  const esmBuiltins = outputs.flatMap((o) => o.imports).filter((i) => i.external === true && i.kind === 'import-statement').map((i) => i.path.replace(/^node:/, ''));
  t.false(esmBuiltins.includes('http') || esmBuiltins.includes('https'), `ESM imports of builtins: ${esmBuiltins.join(', ')}`);
  // the Kubernetes client and the protocol drivers are there, behind dynamic imports
  const all = new Set(Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs)));
  t.true(all.has('shared/kube/client.ts') && all.has('deviceshifu/drivers/mqtt.ts'), 'the bundle still holds them for when they are needed');
  t.false(outputs.some((o) => Object.keys(o.inputs).includes('shared/kube/client.ts')), 'the Kubernetes client loads only in Kubernetes mode');
});
