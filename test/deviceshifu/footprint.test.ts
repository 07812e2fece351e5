// What the bundled deviceShifu loads at start, read from esbuild's metafile: the chunks its entry
// imports statically (dynamic imports load only on demand), and the packages and Node modules in
// them. Each one ruled out here cost megabytes of RSS against a 50 MB budget (deviceshifu/README.md).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { bundleMetafile, loadedAtStart, packagesIn } from '../support/footprint.ts';
import { ConfigDir } from './support/configdir.ts';
import { mockDevice } from './support/mocks.ts';
import { instructionsYaml, opcuaMock } from './support/opcua.ts';

const run = promisify(execFile);

test('at start, deviceShifu loads neither client-node, express, prom-client, pino, yaml, TypeBox, mqtt, node-opcua nor coap, and no ESM import of node:http(s)', async (t) => {
  const meta = await bundleMetafile('deviceshifu', new URL('../../deviceshifu/main.ts', import.meta.url).pathname);
  const outputs = loadedAtStart(meta, 'deviceshifu');
  t.true(outputs.length > 1);
  const packages = packagesIn(outputs);
  t.true(packages.has('@cfworker/json-schema'), `the packages it does need are seen: ${[...packages].join(', ')}`);
  // pino and its helpers: deviceShifu logs through shared/json-log.ts; yaml: loaded for a moment from its own file (shared/yaml.ts)
  // TypeBox: the schemas it checks are JSON written from their TypeBox sources (deviceshifu/schemas/render.ts)
  for (const heavy of ['@kubernetes/client-node', 'express', 'prom-client', 'pino', 'yaml', '@sinclair/typebox', 'sonic-boom', 'thread-stream', 'mqtt', 'undici', 'node-opcua-client', 'node-opcua-crypto', 'node-opcua-certificate-manager', 'coap', 'coap-packet']) t.false(packages.has(heavy), `${heavy} is loaded at start`);
  // an ESM import of node:http builds its namespace, whose lazy WebSocket getter loads undici
  const esmBuiltins = outputs.flatMap((o) => o.imports).filter((i) => i.external === true && i.kind === 'import-statement').map((i) => i.path.replace(/^node:/, ''));
  t.false(esmBuiltins.includes('http') || esmBuiltins.includes('https'), `ESM imports of builtins: ${esmBuiltins.join(', ')}`);
  // the Kubernetes client and the protocol drivers are there, behind dynamic imports
  const all = new Set(Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs)));
  t.true(all.has('shared/kube/client.ts') && all.has('deviceshifu/drivers/mqtt.ts') && all.has('deviceshifu/drivers/opcua.ts') && all.has('deviceshifu/drivers/lwm2m/driver.ts'), 'the bundle still holds them for when they are needed');
  t.false(outputs.some((o) => Object.keys(o.inputs).includes('shared/kube/client.ts')), 'the Kubernetes client loads only in Kubernetes mode');
  const atStart = new Set(outputs.flatMap((o) => Object.keys(o.inputs)));
  t.true(atStart.has('deviceshifu/schemas/config-files.json') && atStart.has('deviceshifu/schemas/settings.json'), 'the schemas it checks at start are there, as JSON');
  t.false(atStart.has('deviceshifu/schemas/edgedevice-spec.json'), 'the EdgeDevice file\'s schema loads only in standalone mode');
});

async function loadedModules(t: ExecutionContext, data: Readonly<Record<string, string>>, spec: EdgeDeviceSpec, instruction: string): Promise<{ status: number; modules: string[] }> {
  const config = await ConfigDir.create(t, data);
  const dir = await mkdtemp(join(tmpdir(), 'footprint-edgedevice-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'edgedevice.yaml');
  await writeFile(file, stringify({ apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice', metadata: { name: 'footprint', namespace: 'devices' }, spec }));
  const child = new URL('support/loaded-modules.ts', import.meta.url).pathname;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', child, config.dir, file, instruction], { maxBuffer: 64 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { status: number; modules: string[] };
}

test('an HTTP deviceShifu serving a request never loads node-opcua or coap; an OPC UA one does', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const http = await loadedModules(t, { instructions: 'instructions:\n  read_value:\n    readWrite: R\n' }, { protocol: 'HTTP', address: thermometer.address }, 'read_value');
  t.is(http.status, 200);
  t.true(http.modules.some((m) => m.includes('/deviceshifu/drivers/http.ts')), 'the HTTP driver was seen loading');
  t.deepEqual(http.modules.filter((m) => m.includes('node_modules/node-opcua') || m.includes('/drivers/opcua') || m.includes('node_modules/coap') || m.includes('/drivers/lwm2m/')), []);
  const mock = await opcuaMock(t);
  const opcua = await loadedModules(t, { instructions: instructionsYaml({ temperature: 'ns=2;i=3' }) }, { protocol: 'OPCUA', address: mock.endpoint }, 'temperature');
  t.is(opcua.status, 200);
  t.true(opcua.modules.some((m) => m.includes('node_modules/node-opcua-client/')), 'the control: an OPC UA deviceShifu loads node-opcua');
});

/** Outputs reached by static imports from the chunk that holds `input` (what loading that module costs). */
function outputsWith(meta: Awaited<ReturnType<typeof bundleMetafile>>, input: string): Array<NonNullable<(typeof meta.outputs)[string]>> {
  const start = Object.entries(meta.outputs).find(([, o]) => Object.keys(o.inputs).includes(input))?.[0];
  const seen = new Set<string>();
  const queue = start === undefined ? [] : [start];
  while (queue.length > 0) {
    const path = queue.pop() ?? '';
    if (seen.has(path)) continue;
    seen.add(path);
    for (const i of meta.outputs[path]?.imports ?? []) if (i.kind === 'import-statement' && i.external !== true) queue.push(i.path);
  }
  return [...seen].map((p) => meta.outputs[p]).filter((o) => o !== undefined);
}

/** The packages loaded with `input`. */
function loadedWith(meta: Awaited<ReturnType<typeof bundleMetafile>>, input: string): Set<string> {
  return packagesIn(outputsWith(meta, input));
}

test('Kubernetes mode adds no ESM import of node:readline, node:tls or node:http(s) (their namespaces load what nothing uses), nor TypeBox and the CRD schemas', async (t) => {
  const meta = await bundleMetafile('deviceshifu', new URL('../../deviceshifu/main.ts', import.meta.url).pathname);
  const kube = outputsWith(meta, 'shared/kube/client.ts');
  t.true(kube.length > 0);
  // node:readline's namespace loads readline/promises; node:tls's reads rootCertificates, which copies Node's bundled CAs into strings
  const esmBuiltins = kube.flatMap((o) => o.imports).filter((i) => i.external === true && i.kind === 'import-statement').map((i) => i.path.replace(/^node:/, ''));
  t.true(esmBuiltins.includes('path'), `the builtins it imports are seen: ${esmBuiltins.join(', ')}`);
  for (const builtin of ['readline', 'tls', 'http', 'https']) t.false(esmBuiltins.includes(builtin), `an ESM import of node:${builtin}`);
  // the API group's name comes from shared/crds/group.ts: resources.ts would build every CRD's schema with TypeBox
  const modes = ['deviceshifu/kube/edgedevice-watch.ts', 'deviceshifu/kube/status.ts', 'deviceshifu/kube/secrets.ts', 'deviceshifu/kube/telemetry-services.ts'].map((input) => outputsWith(meta, input));
  const inputs = new Set([...kube, ...modes.flat()].flatMap((o) => Object.keys(o.inputs)));
  t.true(inputs.has('shared/kube/informer.ts') && inputs.has('shared/crds/group.ts'), 'the Kubernetes-mode modules are seen');
  t.false(packagesIn([...kube, ...modes.flat()]).has('@sinclair/typebox'), 'Kubernetes mode loads TypeBox');
  t.deepEqual([...inputs].filter((i) => i.startsWith('shared/crds/') && i !== 'shared/crds/group.ts'), [], 'Kubernetes mode loads CRD schemas');
});

test('an HTTP deviceShifu never loads the Modbus library (nor serialport) or CoAP; a Modbus one loads modbus-serial, an LwM2M one coap', async (t) => {
  const meta = await bundleMetafile('deviceshifu', new URL('../../deviceshifu/main.ts', import.meta.url).pathname);
  const http = new Set([...packagesIn(loadedAtStart(meta, 'deviceshifu')), ...loadedWith(meta, 'deviceshifu/drivers/http.ts')]);
  for (const heavy of ['modbus-serial', 'serialport', '@serialport/bindings-cpp', 'coap']) t.false(http.has(heavy), `${heavy} loads with the HTTP driver`);
  t.true(loadedWith(meta, 'deviceshifu/drivers/modbus.ts').has('modbus-serial'), 'the Modbus driver brings modbus-serial with it');
  const lwm2m = loadedWith(meta, 'deviceshifu/drivers/lwm2m/driver.ts');
  t.true(lwm2m.has('coap') && !lwm2m.has('modbus-serial'), `the LwM2M driver brings coap with it, and only it: ${[...lwm2m].join(', ')}`);
});
