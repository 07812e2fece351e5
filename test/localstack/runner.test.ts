// The development runner against a real API server: it writes a changed ConfigMap into the
// volume of the process that mounts it, and restarts a process that crashed, as a kubelet would.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { createLogger } from '../../shared/log.ts';
import { freshNamespace, sharedKube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { DevelopmentRunner, type LocalPod } from '../support/localstack/runner.ts';
import { crashesInARow, KUBELET_BACKOFF, restartDelayMs } from '../support/localstack/restarts.ts';
import { waitFor } from '../support/wait.ts';

const NODE = 'edge-runner-test';

function deviceShifuPod(namespace: string, configMap: string): V1Pod {
  return {
    metadata: { name: 'thermometer-deployment-abc', namespace },
    spec: {
      nodeName: NODE,
      containers: [{ name: 'deviceshifu', image: 'edgeshifu', args: ['deviceshifu'],
        env: [{ name: 'EDGEDEVICE_NAME', value: 'thermometer' }, { name: 'EDGEDEVICE_NAMESPACE', value: namespace },
          { name: 'EDGESHIFU_BIND_ADDRESS', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        volumeMounts: [{ name: 'edgedevice-config', mountPath: '/etc/edgedevice/config', readOnly: true }] }],
      volumes: [{ name: 'edgedevice-config', configMap: { name: configMap } }],
    },
  };
}

const instructions = (names: readonly string[]): Record<string, string> => ({
  instructions: `instructions:\n${names.map((n) => `  ${n}:\n`).join('')}`,
});

async function instructionNames(local: LocalPod): Promise<string[]> {
  const res = await fetch(`http://127.0.0.1:${String(local.port)}/instructions`);
  const body = await res.json() as { instructions: Array<{ name: string }> };
  return body.instructions.map((i) => i.name).sort();
}

test('the runner delivers a changed ConfigMap to the running process, and restarts it after a crash', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'runner');
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-runner-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const runner = new DevelopmentRunner({ kc: kube.kc, core: kube.core, kubeconfigPath: kube.kubeconfigPath, namespace, nodeName: NODE, dir, logger: createLogger('runner-test') });
  t.teardown(() => runner.stop());
  await runner.start();
  await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'thermometer-config' }, data: instructions(['read_value']) } });
  await kube.core.createNamespacedPod({ namespace, body: deviceShifuPod(namespace, 'thermometer-config') });

  const local = await waitFor('the deviceShifu process', () => runner.running()[0], { timeoutMs: 60_000 });
  t.deepEqual(await waitFor('its instructions', () => instructionNames(local), { timeoutMs: 60_000 }), ['read_value']);

  await kube.core.replaceNamespacedConfigMap({ name: 'thermometer-config', namespace, body: { metadata: { name: 'thermometer-config' }, data: instructions(['get_status', 'read_value']) } });
  await waitFor('the changed ConfigMap to reach the running process', async () => {
    const names = await instructionNames(local);
    return names.length === 2 ? names : undefined;
  }, { timeoutMs: 30_000 });
  const pid = local.process.pid;
  t.is(local.restarting.restarts, 0, 'delivered without a restart');

  await local.process.kill();
  t.false(local.process.running);
  await waitFor('the runner to restart the crashed process', () => (local.process.running && local.process.pid !== pid ? true : undefined), { timeoutMs: 60_000 });
  t.is(local.restarting.restarts, 1);
  t.deepEqual(await waitFor('the restarted process to answer on its port', () => instructionNames(local), { timeoutMs: 60_000 }), ['get_status', 'read_value']);

  await kube.core.deleteNamespacedPod({ name: 'thermometer-deployment-abc', namespace, gracePeriodSeconds: 0 });
  await waitFor('the process to stop with its Pod', () => (runner.running().length === 0 && !local.process.running ? true : undefined), { timeoutMs: 30_000 });
  t.false(local.restarting.scheduled, 'a process stopped with its Pod is not restarted');
});

test('restart backoff follows the kubelet: 10 s, doubling to 5 minutes, and back to 10 s after 10 minutes up', (t) => {
  t.deepEqual([1, 2, 3, 4, 5, 6, 7].map((n) => restartDelayMs(KUBELET_BACKOFF, n)), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  t.is(crashesInARow(KUBELET_BACKOFF, 6, 1_000), 7);
  t.is(crashesInARow(KUBELET_BACKOFF, 6, 600_000), 1);
});
