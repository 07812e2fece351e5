// The controller process's HTTP face, as a kubelet and Prometheus see it: liveness, readiness
// that follows the caches, metrics for reconciles, queue, leader and the edgeMap, and the edgeMap.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { controllerProcess } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { createDevice, edgeCluster, thermometer, waitForCondition } from './fixtures.ts';

test.serial('the controller serves /healthz, /readyz, /metrics and the edgeMap on its configured address', async (t) => {
  const { cluster, kube } = await edgeCluster(t);
  await kube.core.createNamespace({ body: { metadata: { name: 'edgeshifu-system' } } });
  await kube.addNode('edge-1');
  const controller = controllerProcess(kube, join(cluster.dir, 'logs', 'controller.log'), ['--identity', 'only']);
  controller.start();
  t.teardown(() => controller.stop());
  const port = await waitFor('the listening line', async () => {
    const log = await readFile(controller.spec.logFile, 'utf8').catch(() => '');
    const line = log.split('\n').find((l) => l.includes('serving /healthz'));
    return line === undefined ? undefined : (JSON.parse(line) as { port: number; address: string });
  });
  t.is(port.address, '127.0.0.1');
  const base = `http://127.0.0.1:${port.port}`;
  t.is((await fetch(`${base}/healthz`)).status, 200);
  const ready = await waitFor('ready and leading', async () => {
    const res = await fetch(`${base}/readyz`);
    const text = await res.text();
    return res.status === 200 && text === 'leading' ? text : undefined;
  }, { timeoutMs: 60_000 });
  t.is(ready, 'leading');

  await createDevice(kube, thermometer());
  await waitForCondition(kube, 'edgedevice-thermometer', 'Scheduled', { status: 'True' });
  const metrics = await waitFor('metrics with the device', async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    // the status the wait above saw is written mid-reconcile: the pass is counted when it ends
    return /edgeshifu_edgemap_vertices\{[^}]*\} 2/.test(text) && /edgeshifu_reconcile_total\{[^}]*result="requeue"/.test(text) ? text : undefined;
  });
  t.regex(metrics, /edgeshifu_reconcile_total\{[^}]*result="requeue"[^}]*\} \d+/);
  t.regex(metrics, /edgeshifu_reconcile_duration_seconds_bucket/);
  t.regex(metrics, /edgeshifu_workqueue_depth\{[^}]*\} \d+/);
  t.regex(metrics, /edgeshifu_leader\{[^}]*\} 1/);
  t.regex(metrics, /edgeshifu_edgedevices\{[^}]*\} 1/);
  t.regex(metrics, /edgeshifu_edgemap_links\{[^}]*\} 1/);
  t.regex(metrics, /edgeshifu_process_resident_memory_bytes/);
  const map = await (await fetch(`${base}/edgemap`)).json() as { vertices: Array<{ key: string }> };
  t.deepEqual(map.vertices.map((v) => v.key).sort(), ['devices/edgedevice-thermometer', 'edge-1']);
  t.is((await fetch(`${base}/edgemap.dot`)).status, 200);
});
