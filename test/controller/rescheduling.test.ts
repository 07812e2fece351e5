// Normal operation: a lost node's deviceShifus move, attached devices turn Unknown,
// a clearly better node attracts a device once and it does not flap; the controller rides out
// an API server restart.
import test from 'ava';
import { reconcileCount, startController } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { conditionOf, createDevice, deploymentOf, edgeCluster, nodeOf, readDevice, thermometer, waitForCondition } from './fixtures.ts';

test.serial("a cordoned or deleted node's devices move to another node, and an attached device turns Unknown", async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('a', { memory: '8Gi' });
  await kube.addNode('b', { memory: '2Gi' });
  await startController(t, kube);
  await createDevice(kube, thermometer('mobile'));
  await createDevice(kube, thermometer('wired', { attachedNode: 'a', connection: 'USB' }));
  t.is((await waitForCondition(kube, 'mobile', 'Scheduled', { status: 'True' })).status?.nodeName, 'a');
  await waitForCondition(kube, 'wired', 'BundleReady', { status: 'True' });

  await kube.core.patchNode({ name: 'a', body: { spec: { unschedulable: true } } }, (await import('../../shared/kube/patch.ts')).MERGE_PATCH);
  const moved = await waitFor('mobile on b', async () => { const d = await readDevice(kube, 'mobile'); return d.status?.nodeName === 'b' ? d : undefined; });
  t.is(conditionOf(moved, 'Scheduled')?.reason, 'Rescheduled');
  t.regex(conditionOf(moved, 'Scheduled')?.message ?? '', /a cordoned/);
  t.is(nodeOf(await deploymentOf(kube, 'mobile')), 'b');
  const wired = await waitForCondition(kube, 'wired', 'Scheduled', { reason: 'AttachedNodeUnavailable' });
  t.is(wired.status?.edgedevicephase, 'Unknown');
  t.is(nodeOf(await deploymentOf(kube, 'wired')), 'a', 'an attached deviceShifu is not moved away from its device');

  // the node comes back: the attached device is served again
  await kube.core.patchNode({ name: 'a', body: { spec: { unschedulable: false } } }, (await import('../../shared/kube/patch.ts')).MERGE_PATCH);
  await waitForCondition(kube, 'wired', 'Scheduled', { status: 'True' });
  // b disappears altogether: mobile goes back to a
  await kube.deleteNode('b');
  await waitFor('mobile back on a', async () => (await readDevice(kube, 'mobile')).status?.nodeName === 'a' ? true : undefined);
  t.pass();
});

test.serial('a device moves once to a clearly better node and does not flap', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('old', { memory: '1Gi' });
  const running = await startController(t, kube);
  await createDevice(kube, thermometer('drifter'));
  await waitForCondition(kube, 'drifter', 'BundleReady', { status: 'True' });
  t.is((await readDevice(kube, 'drifter')).status?.nodeName, 'old');

  // an equal node does not attract it; one with far more memory does (hysteresis: 2x free memory)
  await kube.addNode('same', { memory: '1Gi' });
  await kube.addNode('huge', { memory: '16Gi' });
  const moved = await waitFor('the move to huge', async () => { const d = await readDevice(kube, 'drifter'); return d.status?.nodeName === 'huge' ? d : undefined; });
  t.is(conditionOf(moved, 'Scheduled')?.reason, 'Rescheduled');

  // several resyncs later (every 2 s here) it is still there, and it moved exactly once
  const reconciles = (): Promise<number> => reconcileCount(running.registry);
  const before = await reconciles();
  await waitFor('three more resyncs', async () => (await reconciles()) >= before + 3 ? true : undefined, { timeoutMs: 60_000 });
  const device = await readDevice(kube, 'drifter');
  t.is(device.status?.nodeName, 'huge');
  const events = await kube.core.listNamespacedEvent({ namespace: 'devices' });
  t.is(events.items.filter((e) => e.involvedObject.name === 'drifter' && e.reason === 'Rescheduled').length, 1);
});

test.serial('the controller rides out an API server restart and serves devices created afterwards', async (t) => {
  const { cluster, kube } = await edgeCluster(t);
  await kube.addNode('edge-1');
  const running = await startController(t, kube);
  await createDevice(kube, thermometer('before'));
  await waitForCondition(kube, 'before', 'Scheduled', { status: 'True' });

  await cluster.restartComponent('kube-apiserver');
  await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices', body: thermometer('after') });
  await waitForCondition(kube, 'after', 'Scheduled', { status: 'True' });
  t.truthy(await waitFor('the Deployment', () => deploymentOf(kube, 'after')));
  t.true(running.controller.world.devices.stats.watches > 1, 'the watch was reopened');
});
