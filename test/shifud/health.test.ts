// /healthz, /readyz and /metrics: the verdicts as pure functions, then served by shifud against the
// real control plane — not ready until it has listed EdgeDevices and registered its EdgeNode, its
// counters moving with what it does, and a port already taken reported without stopping shifud.
import test from 'ava';
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { createLogger } from '../../shared/log.ts';
import { liveness, readiness } from '../../shifud/health.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { MockDevice, createDevice, fastConfig, readEdgeNode, startShifud, waitReachable } from './harness.ts';

test('live while the sample loop turns; stuck past the limit is not live', (t) => {
  const state = { startedAt: 0, lastTurnAt: undefined, stallMs: 30_000 };
  t.true(liveness(state, 30_000).ok, 'no turn yet, within the limit since start');
  t.like(liveness(state, 30_001), { ok: false, detail: 'the sample loop has not come round for 30 s (limit 30 s)' });
  t.true(liveness({ ...state, lastTurnAt: 50_000 }, 70_000).ok);
  t.false(liveness({ ...state, lastTurnAt: 50_000 }, 90_000).ok);
});

test('ready once EdgeDevices are listed and the EdgeNode registered, and not while the API server fails', (t) => {
  const ready = { devicesListed: true, nodeRegistered: true, apiOutage: false };
  t.deepEqual(readiness(ready), { ok: true, detail: 'ready' });
  t.deepEqual(readiness({ ...ready, devicesListed: false }), { ok: false, detail: 'listing EdgeDevices' });
  t.deepEqual(readiness({ ...ready, nodeRegistered: false }), { ok: false, detail: 'registering the EdgeNode' });
  t.deepEqual(readiness({ ...ready, apiOutage: true }), { ok: false, detail: 'the API server is not answering; backing off' });
});

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text);
  if (match?.[1] === undefined) throw new Error(`${name} missing from\n${text}`);
  return Number(match[1]);
}

test('shifud serves /healthz, /readyz and /metrics on the configured address', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const node = uniqueName('shifud-health');
  const device = await new MockDevice().up();
  t.teardown(() => device.down());
  await createDevice(kube, namespace, 'plc', { protocol: 'TCP', address: device.address });
  const shifud = await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace, healthAddress: '127.0.0.1' }));
  const port = shifud.healthPort;
  if (port === undefined) return t.fail('no health server');

  t.deepEqual(await get(port, '/healthz'), { status: 200, body: 'ok' });
  await waitFor('/readyz to say ready', async () => ((await get(port, '/readyz')).status === 200 ? true : undefined));
  t.truthy(await readEdgeNode(kube, node), 'ready means the EdgeNode exists');
  await waitReachable(kube, namespace, 'plc', { status: 'True' });

  const scrape = await get(port, '/metrics');
  t.is(scrape.status, 200);
  t.true(metric(scrape.body, 'edgeshifu_shifud_edgenode_writes_total') >= 1);
  t.true(metric(scrape.body, 'edgeshifu_shifud_edgedevice_writes_total') >= 1);
  t.true(metric(scrape.body, 'edgeshifu_shifud_samples_total') >= 1);
  t.true(metric(scrape.body, 'edgeshifu_process_resident_memory_bytes') > 10 * 2 ** 20);
  t.regex(scrape.body, new RegExp(`^edgeshifu_shifud_devices_seen\\{component="shifud",node="${node}"\\} 1$`, 'm'));
  t.regex(scrape.body, /^# TYPE edgeshifu_shifud_probes_total counter$/m);
  const probes = metric(scrape.body, 'edgeshifu_shifud_probes_total');
  await waitFor('the probe counter to move', async () => (metric((await get(port, '/metrics')).body, 'edgeshifu_shifud_probes_total') > probes ? true : undefined));
  t.is((await get(port, '/nothing')).status, 404);
});

test('a health port already taken is reported and shifud works on without it', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const taken = createServer();
  await new Promise<void>((resolve) => { taken.listen(0, '127.0.0.1', () => { resolve(); }); });
  t.teardown(() => { taken.close(); });
  const address = taken.address();
  if (address === null || typeof address === 'string') return t.fail('no port');
  const node = uniqueName('shifud-taken');
  const lines: string[] = [];
  const destination = new PassThrough();
  destination.on('data', (chunk: Buffer) => { lines.push(...chunk.toString().split('\n').filter((l) => l !== '')); });
  const logger = createLogger('shifud-test', { level: 'warn', destination });
  const shifud = await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace, healthPort: address.port }), { logger });
  t.is(shifud.healthPort, undefined);
  const said = await waitFor('the error line', () => lines.map((l) => JSON.parse(l) as { level: string; msg: string; port: number }).find((l) => l.level === 'error'));
  t.like(said, { msg: 'cannot serve /healthz, /readyz, /metrics: choose another --health-port (EDGESHIFU_HEALTH_PORT) or --health-address', port: address.port });
  await waitFor('the EdgeNode all the same', async () => ((await readEdgeNode(kube, node))?.status?.capacity !== undefined ? true : undefined));
});
