// Taints on the real control plane: placement keeps deviceShifu off nodes whose
// NoSchedule/NoExecute taints it does not tolerate, moves it off a node tainted under it, keeps an
// attached device Pending, and with the controller's tolerations the real scheduler agrees.
import test from 'ava';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startController } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { conditionOf, createDevice, deploymentOf, edgeCluster, nodeOf, thermometer, waitForCondition } from './fixtures.ts';

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

test('tainted nodes are skipped unless the controller tolerates their taints', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('dedicated', { memory: '8Gi', taints: [{ key: 'dedicated', value: 'plc', effect: 'NoSchedule' }] });
  await kube.addNode('plain', { memory: '2Gi' });
  await kube.addNode('spare', { memory: '512Mi' });
  const untolerant = await startController(t, kube);

  // the node with the most memory is tainted: the device goes to the next best, and runs there
  await createDevice(kube, thermometer('roaming'));
  t.is((await waitForCondition(kube, 'roaming', 'Scheduled', { status: 'True' })).status?.nodeName, 'plain');
  await waitForCondition(kube, 'roaming', 'BundleReady', { status: 'True' });

  // naming the tainted node does not get around the taint
  await createDevice(kube, thermometer('wired', { attachedNode: 'dedicated', connection: 'USB' }));
  const wired = await waitForCondition(kube, 'wired', 'Scheduled', { reason: 'AttachedNodeTainted' });
  t.is(wired.status?.edgedevicephase, 'Pending');
  t.regex(conditionOf(wired, 'Scheduled')?.message ?? '', /attached node dedicated has taint dedicated=plc:NoSchedule, .*--device-shifu-tolerations/);
  t.is(await deploymentOf(kube, 'wired'), undefined);

  // a NoExecute taint under a running deviceShifu moves it, as a cordon would
  await kube.core.patchNode({ name: 'plain', body: [{ op: 'add', path: '/spec/taints', value: [{ key: 'maintenance', effect: 'NoExecute' }] }] },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch));
  const moved = await waitForCondition(kube, 'roaming', 'Scheduled', { reason: 'Rescheduled' });
  t.is(moved.status?.nodeName, 'spare');
  t.regex(conditionOf(moved, 'Scheduled')?.message ?? '', /; plain has taint maintenance:NoExecute, not tolerated/);
  t.is(nodeOf(await deploymentOf(kube, 'roaming')), 'spare');
  await untolerant.controller.stop();

  // a controller that tolerates the dedicated taint: the attached device runs there, with the
  // tolerations in its pod, so the real scheduler binds it and KWOK runs it
  await startController(t, kube, ['--device-shifu-tolerations', 'dedicated=plc:NoSchedule']);
  const placed = await waitForCondition(kube, 'wired', 'Scheduled', { status: 'True' });
  t.is(placed.status?.nodeName, 'dedicated');
  await waitForCondition(kube, 'wired', 'BundleReady', { status: 'True' });
  const deployment = await waitFor('the Deployment', () => deploymentOf(kube, 'wired'));
  t.deepEqual(plain(deployment.spec?.template.spec?.tolerations), [{ key: 'dedicated', operator: 'Equal', value: 'plc', effect: 'NoSchedule' }]);
  const pods = await kube.core.listNamespacedPod({ namespace: 'deviceshifu', labelSelector: 'shifu.edgenesis.io/edgedevice=wired' });
  t.deepEqual(pods.items.map((p) => p.spec?.nodeName), ['dedicated']);
});
