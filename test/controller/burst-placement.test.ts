// A burst of EdgeDevices on the real control plane with KWOK nodes whose allocatable pods are few:
// the controller counts the deviceShifus it placed before their pods exist, so no node gets more
// than it can run, every pod is bound and runs, and the device past the cluster's last slot waits
// saying why.
import test from 'ava';
import { startController } from '../support/controller.ts';
import { conditionOf, createDevice, edgeCluster, readDevice, thermometer, waitForCondition } from './fixtures.ts';

const SLOTS = { roomy: 4, middle: 4, small: 4 };

test.serial('a burst fills each node up to its allocatable pods, in order of free memory, and every deviceShifu pod runs', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('roomy', { memory: '16Gi', pods: String(SLOTS.roomy) });
  await kube.addNode('middle', { memory: '8Gi', pods: String(SLOTS.middle) });
  await kube.addNode('small', { memory: '4Gi', pods: String(SLOTS.small) });
  // every device exists before the controller starts: its workers place them all at once, before
  // any of their pods is made, let alone bound
  const names = Array.from({ length: 10 }, (_, i) => `burst-${String(i)}`);
  for (const name of names) await createDevice(kube, thermometer(name));
  await startController(t, kube);

  const placed = new Map<string, number>();
  for (const name of names) {
    const device = await waitForCondition(kube, name, 'Scheduled', { status: 'True' });
    const node = device.status?.nodeName ?? '';
    placed.set(node, (placed.get(node) ?? 0) + 1);
  }
  // the roomiest node stays first by memory until its pod slots are gone, then the next
  t.deepEqual(Object.fromEntries(placed), { roomy: 4, middle: 4, small: 2 });
  for (const name of names) await waitForCondition(kube, name, 'BundleReady', { status: 'True', timeoutMs: 120_000 });
  const pods = await kube.core.listNamespacedPod({ namespace: 'deviceshifu' });
  t.is(pods.items.length, names.length);
  t.deepEqual(pods.items.filter((p) => p.status?.phase !== 'Running').map((p) => `${p.metadata?.name ?? ''}: ${p.status?.phase ?? ''}`), [],
    'no pod Pending as "Too many pods"');

  // two more fill the last slots; the next finds none and says so
  for (const name of ['late-0', 'late-1', 'late-2']) await createDevice(kube, thermometer(name));
  for (const name of ['late-0', 'late-1']) t.is((await waitForCondition(kube, name, 'Scheduled', { status: 'True' })).status?.nodeName, 'small');
  const waiting = await waitForCondition(kube, 'late-2', 'Scheduled', { status: 'False', reason: 'NoNodeAvailable' });
  t.regex(conditionOf(waiting, 'Scheduled')?.message ?? '', /3 without .* memory, .* CPU and room for one more pod/);
  // nothing placed past a node's slots while it waited
  const all = await Promise.all([...names, 'late-0', 'late-1'].map((name) => readDevice(kube, name)));
  const counts = new Map<string, number>();
  for (const device of all) counts.set(device.status?.nodeName ?? '', (counts.get(device.status?.nodeName ?? '') ?? 0) + 1);
  t.deepEqual(Object.fromEntries(counts), { roomy: 4, middle: 4, small: 4 });
});
