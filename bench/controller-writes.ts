// API requests per EdgeDevice, created → BundleReady=True, and again over a controller restart:
// the API server's own apiserver_request_total (every writer, by verb, resource and code) before
// and after, beside the controller's edgeshifu_kube_writes_total. The controller runs in this
// process on a private control plane with 20 KWOK nodes; reads (watches aside) are counted too.
//   npm run bench:controller-writes -- [--devices 500] [--workers 16] [--settle 75]
// --settle: seconds to wait once every bundle is ready, before counting (75 covers a resync round).
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { startCluster } from '../test/support/controlplane/cluster.ts';
import { Kube } from '../test/support/cluster.ts';
import { installCrds } from '../test/support/crds.ts';
import { kubectl } from '../test/support/kubectl.ts';
import { shifuExample } from '../test/support/shifu/index.ts';
import { waitFor } from '../test/support/wait.ts';
import { stringify } from 'yaml';
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import { loadConfig } from '../shared/config.ts';
import { createLogger } from '../shared/log.ts';
import { controllerRegistry } from '../controller/metrics.ts';
import { ControllerConfig } from '../controller/config.ts';
import { Controller } from '../controller/manager.ts';
import { KubeClient } from '../shared/kube/client.ts';
import { EdgeMap } from '../edgemap/index.ts';
import { EdgeMapTopology } from '../controller/edgemap-topology.ts';

const { values } = parseArgs({ options: { devices: { type: 'string', default: '500' }, workers: { type: 'string', default: '8' }, settle: { type: 'string', default: '20' } } });
const N = Number(values.devices);
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
console.log('load before', load());
const plane = await startCluster({ name: 'edgeshifu-bench-writes' });
try {
  const kube = new Kube(plane.kubeconfigPath);
  await installCrds(kube);
  for (const ns of ['deviceshifu', 'devices']) await kube.core.createNamespace({ body: { metadata: { name: ns } } });
  await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], stringify(shifuExample('thermometer-configmap')[0]));
  for (let i = 0; i < 20; i++) await kube.addNode(`edge-${i}`, { memory: '64Gi', cpu: '64', pods: '1000' });
  const apiMetrics = async (): Promise<Map<string, number>> => {
    const text = (await kubectl(kube.kubeconfigPath, ['get', '--raw', '/metrics'])).stdout;
    const m = new Map<string, number>();
    for (const line of text.split('\n')) {
      if (!line.startsWith('apiserver_request_total{')) continue;
      const verb = /verb="(\w+)"/.exec(line)?.[1] ?? '';
      if (['WATCH'].includes(verb)) continue;
      const res = /resource="(\w+)"/.exec(line)?.[1] ?? '';
      const sub = /subresource="(\w*)"/.exec(line)?.[1] ?? '';
      const code = /code="(\d+)"/.exec(line)?.[1] ?? '';
      const k = `${verb} ${res}${sub ? '/' + sub : ''} ${code}`;
      m.set(k, (m.get(k) ?? 0) + Number(line.split(' ').at(-1)));
    }
    return m;
  };
  const client = KubeClient.fromKubeconfig(kube.kubeconfigPath);
  const logger = createLogger('controller', { destination: new Writable({ write(_c, _e, d) { d(); } }), level: 'info' });
  const config = loadConfig(ControllerConfig, { argv: ['--no-leader-election', '--workers', values.workers, '--resync-seconds', '60'], env: {} });
  const registry = controllerRegistry();
  const controller = new Controller({ client, config, logger, registry, topology: new EdgeMapTopology(new EdgeMap(), logger) });
  await controller.start();
  controller.lead();
  const before = await apiMetrics();
  const t0 = performance.now();
  const names = Array.from({ length: N }, (_, i) => `device-${i}`);
  for (let i = 0; i < N; i += 8) await Promise.all(names.slice(i, i + 8).map((name) => kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices',
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name }, spec: { protocol: 'HTTP', address: 'x:1', configMapName: 'thermometer-configmap-0.0.1' } } })));
  const created = performance.now() - t0;
  await waitFor('every BundleReady', async () => {
    const list = await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices' }) as { items: Array<{ status?: { conditions?: Array<{ type: string; status: string }> } }> };
    const ready = list.items.filter((d) => d.status?.conditions?.some((c) => c.type === 'BundleReady' && c.status === 'True')).length;
    return ready >= N ? true : undefined;
  }, { timeoutMs: 60 * 60_000, intervalMs: 1000 });
  const done = performance.now() - t0;
  await new Promise((r) => setTimeout(r, Number(values.settle) * 1000));
  const after = await apiMetrics();
  console.log(`devices ${N}, workers ${values.workers}: created in ${(created / 1000).toFixed(1)} s; all BundleReady in ${(done / 1000).toFixed(1)} s = ${(N / (done / 1000)).toFixed(2)} devices/s; load ${load()}`);
  const rows = [...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0).sort();
  for (const [k, v] of rows) console.log(`  ${k.padEnd(50)} ${String(v).padStart(7)}  ${(v / N).toFixed(2)}/device`);
  for (const line of registry.metrics().split('\n')) if (/^edgeshifu_(kube_writes_total|reconcile_total)/.test(line)) console.log('  ' + line);
  await controller.stop();
  // a restart: a fresh process over the same, converged devices (leader fail-over, upgrade, OOM kill)
  const before2 = await apiMetrics();
  const registry2 = controllerRegistry();
  const controller2 = new Controller({ client, config, logger, registry: registry2, topology: new EdgeMapTopology(new EdgeMap(), logger) });
  const t2 = performance.now();
  await controller2.start();
  controller2.lead();
  const count = (): number => registry2.metrics().split('\n').filter((l) => l.startsWith('edgeshifu_reconcile_total')).reduce((a, l) => a + Number(l.split(' ').at(-1)), 0);
  await waitFor('every device reconciled after the restart', () => (count() >= N ? true : undefined), { timeoutMs: 60 * 60_000 });
  console.log(`restart: every device reconciled once in ${((performance.now() - t2) / 1000).toFixed(1)} s`);
  await new Promise((r) => setTimeout(r, 10_000));
  const after2 = await apiMetrics();
  for (const [k, v] of [...after2].map(([k, v]) => [k, v - (before2.get(k) ?? 0)] as const).filter(([, v]) => v > 0).sort()) console.log(`  ${k.padEnd(50)} ${String(v).padStart(7)}  ${(v / N).toFixed(2)}/device`);
  for (const line of registry2.metrics().split('\n')) if (/^edgeshifu_(kube_writes_total|reconcile_total)/.test(line)) console.log('  ' + line);
  await controller2.stop();
  client.close();
} finally {
  await plane.stop();
}
