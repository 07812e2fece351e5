// --device-shifu-node-flags on the real control plane: the setting becomes the NODE_FLAGS of every
// deviceShifu, an existing bundle takes it when the controller restarts with it, and without it
// the pod has deviceShifu's own flags.
import test from 'ava';
import { DEVICE_SHIFU_NODE_FLAGS } from '../../controller/bundle/node-flags.ts';
import { startController } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { createDevice, deploymentOf, edgeCluster, thermometer, waitForCondition } from './fixtures.ts';

const nodeFlagsOf = (deployment: Awaited<ReturnType<typeof deploymentOf>>): string | undefined =>
  deployment?.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'NODE_FLAGS')?.value;

test('the controller\'s node flags reach every deviceShifu, existing bundles included', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1', { memory: '2Gi' });
  const plain = await startController(t, kube);
  await createDevice(kube, thermometer('busy'));
  await waitForCondition(kube, 'busy', 'BundleReady', { status: 'True' });
  const before = await waitFor('the Deployment', () => deploymentOf(kube, 'busy'));
  t.is(nodeFlagsOf(before), DEVICE_SHIFU_NODE_FLAGS.join(' '), 'without the setting deviceShifu\'s own flags');
  await plain.controller.stop();

  await startController(t, kube, ['--device-shifu-node-flags=--max-opt=2 --max-semi-space-size=1']);
  const after = await waitFor('the Deployment with the node flags', async () => {
    const deployment = await deploymentOf(kube, 'busy');
    return nodeFlagsOf(deployment) === DEVICE_SHIFU_NODE_FLAGS.join(' ') ? undefined : deployment;
  }, { timeoutMs: 60_000 });
  t.is(nodeFlagsOf(after), '--max-opt=2 --max-semi-space-size=1');
  t.true((after.metadata?.generation ?? 0) > (before.metadata?.generation ?? 0), 'the running bundle was updated, not replaced');
  t.is(after.metadata?.uid, before.metadata?.uid);
});
