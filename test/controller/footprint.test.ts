// What the bundled controller loads at start, read from esbuild's metafile: the chunks its entry
// imports statically (dynamic imports load only on demand), and the packages in them. express,
// prom-client and DRONE's MQTT code cost it ~24 MB of RSS together (controller/README.md, Footprint).
import test from 'ava';
import { bundleMetafile, loadedAtStart, packagesIn } from '../support/footprint.ts';

test('at start, the controller loads neither client-node, express, prom-client, mqtt nor aedes; DRONE waits behind a dynamic import', async (t) => {
  const meta = await bundleMetafile('controller', new URL('../../controller/main.ts', import.meta.url).pathname);
  const outputs = loadedAtStart(meta, 'controller');
  const packages = packagesIn(outputs);
  // yaml is not among them: it is loaded on use only (shared/yaml.ts), for a kubeconfig read at start
  t.true(packages.has('@sinclair/typebox') && packages.has('pino'), `the packages it does need are seen: ${[...packages].join(', ')}`);
  // the edgeMap keeps its own vertex table (edgemap/adjacency.ts); only the page draws with graphology
  t.false(packages.has('graphology'), 'graphology is bundled in the controller');
  for (const heavy of ['@kubernetes/client-node', 'express', 'prom-client', 'mqtt', 'aedes', 'undici']) t.false(packages.has(heavy), `${heavy} is loaded at start`);
  const atStart = new Set(outputs.flatMap((o) => Object.keys(o.inputs)));
  t.true(atStart.has('controller/server.ts') && atStart.has('shared/prometheus.ts'));
  t.false(atStart.has('controller/offload/manager.ts'), 'the Offloader loads only with --drone-cluster');
  const all = new Set(Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs)));
  t.true(all.has('controller/offload/manager.ts'), 'the bundle still holds it for when it is needed');
});
