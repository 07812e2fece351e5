// What the bundled deviceShifu loads at start, read from esbuild's metafile: the chunks its entry
// imports statically (dynamic imports load only on demand), and the packages and Node modules in
// them. Each one ruled out here cost megabytes of RSS against a 50 MB budget (deviceshifu/README.md).
import test from 'ava';
import { bundleMetafile, loadedAtStart, packagesIn } from '../support/footprint.ts';

test('at start, deviceShifu loads neither client-node, express, prom-client nor mqtt, and no ESM import of node:http(s)', async (t) => {
  const meta = await bundleMetafile('deviceshifu', new URL('../../deviceshifu/main.ts', import.meta.url).pathname);
  const outputs = loadedAtStart(meta, 'deviceshifu');
  t.true(outputs.length > 1);
  const packages = packagesIn(outputs);
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

/** Outputs reached by static imports from the chunk that holds `input` (what loading that module costs). */
function loadedWith(meta: Awaited<ReturnType<typeof bundleMetafile>>, input: string): Set<string> {
  const start = Object.entries(meta.outputs).find(([, o]) => Object.keys(o.inputs).includes(input))?.[0];
  const seen = new Set<string>();
  const queue = start === undefined ? [] : [start];
  while (queue.length > 0) {
    const path = queue.pop() ?? '';
    if (seen.has(path)) continue;
    seen.add(path);
    for (const i of meta.outputs[path]?.imports ?? []) if (i.kind === 'import-statement' && i.external !== true) queue.push(i.path);
  }
  return packagesIn([...seen].map((p) => meta.outputs[p]).filter((o) => o !== undefined));
}

test('an HTTP deviceShifu never loads the Modbus library (nor serialport) or CoAP; a Modbus one does', async (t) => {
  const meta = await bundleMetafile('deviceshifu', new URL('../../deviceshifu/main.ts', import.meta.url).pathname);
  const http = new Set([...packagesIn(loadedAtStart(meta, 'deviceshifu')), ...loadedWith(meta, 'deviceshifu/drivers/http.ts')]);
  for (const heavy of ['modbus-serial', 'serialport', '@serialport/bindings-cpp', 'coap']) t.false(http.has(heavy), `${heavy} loads with the HTTP driver`);
  t.true(loadedWith(meta, 'deviceshifu/drivers/modbus.ts').has('modbus-serial'), 'the Modbus driver brings modbus-serial with it');
});
