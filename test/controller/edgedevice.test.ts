// The controller against the real control plane with KWOK nodes: Shifu's thermometer
// becomes a deviceShifu bundle on the right node; deletion, bad input and hand edits converge.
// Serial: each test runs its own control plane and controller, which in parallel would starve a
// 2-core machine.
import test from 'ava';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

/** client-node returns class instances; compare their JSON. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
import { startController } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { CONFIG_MAP, conditionOf, createDevice, deploymentOf, edgeCluster, nodeOf, readDevice, thermometer, waitForCondition } from './fixtures.ts';

test.serial("Shifu's thermometer, with only configMapName added, gets its deviceShifu Deployment and Service", async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1', { memory: '2Gi' });
  await startController(t, kube);
  await createDevice(kube, thermometer());

  const scheduled = await waitForCondition(kube, 'edgedevice-thermometer', 'Scheduled', { status: 'True' });
  t.is(scheduled.status?.nodeName, 'edge-1');
  t.true(scheduled.metadata.finalizers?.includes('shifu.edgenesis.io/deviceshifu-cleanup'));

  const deployment = await waitFor('the Deployment', () => deploymentOf(kube, 'edgedevice-thermometer'));
  t.is(deployment.metadata?.namespace, 'deviceshifu');
  t.like(deployment.metadata?.labels, { app: 'edgedevice-thermometer-deployment', 'shifu.edgenesis.io/edgedevice': 'edgedevice-thermometer', 'shifu.edgenesis.io/edgedevice-namespace': 'devices' });
  const pod = deployment.spec?.template.spec;
  const container = pod?.containers[0];
  t.deepEqual(plain(container?.env?.slice(0, 2)), [{ name: 'EDGEDEVICE_NAME', value: 'edgedevice-thermometer' }, { name: 'EDGEDEVICE_NAMESPACE', value: 'devices' }]);
  t.deepEqual(plain(container?.volumeMounts), [{ name: 'edgedevice-config', mountPath: '/etc/edgedevice/config', readOnly: true }]);
  t.is(pod?.volumes?.[0]?.configMap?.name, CONFIG_MAP);
  t.is(pod?.serviceAccountName, 'deviceshifu-edgedevice-thermometer');
  t.is(pod?.securityContext?.runAsNonRoot, true);
  t.is(container?.securityContext?.readOnlyRootFilesystem, true);
  t.like(container?.resources, { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '200m', memory: '96Mi' } });
  t.is(container?.livenessProbe?.httpGet?.path, '/health');
  t.is(nodeOf(deployment), 'edge-1');

  const service = await kube.core.readNamespacedService({ namespace: 'deviceshifu', name: 'edgedevice-thermometer' });
  t.like(service.spec?.ports?.[0], { port: 80, targetPort: 8080 });
  t.deepEqual(plain(service.spec?.selector), { app: 'edgedevice-thermometer-deployment', 'shifu.edgenesis.io/edgedevice-namespace': 'devices' });

  // the real scheduler honours the placement and KWOK runs the pod: the bundle becomes ready
  const ready = await waitForCondition(kube, 'edgedevice-thermometer', 'BundleReady', { status: 'True' });
  t.is(ready.status?.edgedevicephase, 'Pending', 'Running is for deviceShifu to say, once it reaches the device');
  const pods = await kube.core.listNamespacedPod({ namespace: 'deviceshifu' });
  t.deepEqual(plain(pods.items.map((p) => p.spec?.nodeName)), ['edge-1']);
  const events = await kube.core.listNamespacedEvent({ namespace: 'devices' });
  t.true(events.items.some((e) => e.involvedObject.name === 'edgedevice-thermometer' && e.reason === 'NodeChosen'), 'an Event records the decision');

  // the least-privilege access of the deviceShifu
  const role = await kube.kc.makeApiClient((await import('@kubernetes/client-node')).RbacAuthorizationV1Api).readNamespacedRole({ namespace: 'devices', name: 'deviceshifu-edgedevice-thermometer' });
  t.deepEqual(plain(role.rules?.map((r) => [r.resources, r.resourceNames, r.verbs])), [
    [['edgedevices'], ['edgedevice-thermometer'], ['get', 'list', 'watch']],
    [['edgedevices/status'], ['edgedevice-thermometer'], ['get', 'patch']],
    [['telemetryservices'], null, ['get']],
  ]);
});

test.serial('a device goes to the node with the most free memory, or the closest one when locations are known', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('small', { memory: '1Gi' });
  await kube.addNode('large', { memory: '8Gi' });
  const running = await startController(t, kube);
  await createDevice(kube, thermometer('by-memory'));
  t.is((await waitForCondition(kube, 'by-memory', 'Scheduled', { status: 'True' })).status?.nodeName, 'large');

  // EdgeNodes with locations: the device in Turin goes to the Turin node, though it has less memory
  for (const [name, location] of [['small', { latitude: 45.07, longitude: 7.69 }], ['large', { latitude: 45.46, longitude: 9.19 }]] as const) {
    await kube.custom.createClusterCustomObject({ group: GROUP, version: VERSION, plural: 'edgenodes', body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeNode', metadata: { name }, spec: { location } } });
  }
  await createDevice(kube, thermometer('by-location', { location: { latitude: 45.0703, longitude: 7.6869 } }));
  const placed = await waitForCondition(kube, 'by-location', 'Scheduled', { status: 'True' });
  t.is(placed.status?.nodeName, 'small');
  t.regex(conditionOf(placed, 'Scheduled')?.message ?? '', /closest by location \(0\.\d+ km\)/);
  // the edgeMap holds both nodes and links each device to its node
  await waitFor('the edgeMap links', () => running.map.linkBetween('small', 'devices/by-location') !== undefined ? true : undefined);
  t.is(running.map.vertex('devices/by-location')?.kind, 'edgeDevice');
  t.is(running.map.linkBetween('large', 'devices/by-memory')?.type, 'Ethernet');
});

test.serial('an attached device runs on its node; with no room anywhere a device stays Pending and says why', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('usb-host', { memory: '256Mi' });
  await kube.addNode('big', { memory: '8Gi' });
  await startController(t, kube);
  await createDevice(kube, thermometer('attached', { attachedNode: 'usb-host', connection: 'USB' }));
  t.is((await waitForCondition(kube, 'attached', 'Scheduled', { status: 'True' })).status?.nodeName, 'usb-host');

  await createDevice(kube, thermometer('nowhere', { attachedNode: 'no-such-node' }));
  const lost = await waitForCondition(kube, 'nowhere', 'Scheduled', { reason: 'AttachedNodeUnavailable' });
  t.is(lost.status?.edgedevicephase, 'Unknown');
  t.is(conditionOf(lost, 'Scheduled')?.message, 'attached node no-such-node does not exist');
  t.is(await deploymentOf(kube, 'nowhere'), undefined);
});

test.serial('a node too small for the deviceShifu leaves the device Pending with the reason', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('tiny', { memory: '16Mi' });
  // no resync within the test: only the node event can give the waiting device its node
  await startController(t, kube, ['--resync-seconds', '3600']);
  await createDevice(kube, thermometer('squeezed'));
  const pending = await waitForCondition(kube, 'squeezed', 'Scheduled', { status: 'False' });
  t.is(conditionOf(pending, 'Scheduled')?.reason, 'NoNodeAvailable');
  t.regex(conditionOf(pending, 'Scheduled')?.message ?? '', /no node can run the deviceShifu: 0 unavailable, 1 without 32Mi memory/);
  t.is(pending.status?.edgedevicephase, 'Pending');
  // a node with room arrives: the device is placed without anyone touching it
  await kube.addNode('roomy', { memory: '4Gi' });
  t.is((await waitForCondition(kube, 'squeezed', 'Scheduled', { status: 'True' })).status?.nodeName, 'roomy');
});

test.serial('a missing ConfigMap is reported, and fixed by creating it', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1');
  await startController(t, kube);
  await createDevice(kube, thermometer('no-config', { configMapName: 'not-yet' }));
  const waiting = await waitForCondition(kube, 'no-config', 'BundleReady', { reason: 'ConfigMapNotFound' });
  t.is(conditionOf(waiting, 'BundleReady')?.message, 'ConfigMap deviceshifu/not-yet does not exist: create it (it is mounted at /etc/edgedevice/config)');
  t.is(await deploymentOf(kube, 'no-config'), undefined);
  await createDevice(kube, thermometer('unset', { configMapName: undefined }));
  t.regex(conditionOf(await waitForCondition(kube, 'unset', 'BundleReady', { reason: 'ConfigMapNotSet' }), 'BundleReady')?.message ?? '', /set spec\.configMapName/);

  await kube.core.createNamespacedConfigMap({ namespace: 'deviceshifu', body: { metadata: { name: 'not-yet' }, data: { instructions: 'instructions: {}' } } });
  await waitForCondition(kube, 'no-config', 'Scheduled', { status: 'True' });
  t.truthy(await waitFor('the Deployment', () => deploymentOf(kube, 'no-config')));
});

test.serial('deleting an EdgeDevice removes its bundle and then the device', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1');
  const running = await startController(t, kube);
  await createDevice(kube, thermometer('doomed'));
  await waitFor('the Deployment', () => deploymentOf(kube, 'doomed'));
  await waitFor('the device on the edgeMap', () => running.map.has('devices/doomed') ? true : undefined);
  await kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices', name: 'doomed' });
  await waitFor('the device gone', async () => (await readDevice(kube, 'doomed').then(() => false, () => true)) ? true : undefined);
  t.is(await deploymentOf(kube, 'doomed'), undefined);
  await t.throwsAsync(kube.core.readNamespacedService({ namespace: 'deviceshifu', name: 'doomed' }));
  await t.throwsAsync(kube.core.readNamespacedServiceAccount({ namespace: 'deviceshifu', name: 'deviceshifu-doomed' }));
  await waitFor('the device off the edgeMap', () => running.map.has('devices/doomed') ? undefined : true);
  t.pass();
});

test.serial('a deviceShifu Deployment deleted or edited by hand is put back', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1');
  await startController(t, kube);
  await createDevice(kube, thermometer('guarded'));
  const original = await waitFor('the Deployment', () => deploymentOf(kube, 'guarded'));
  const image = original.spec?.template.spec?.containers[0]?.image;

  await kube.apps.deleteNamespacedDeployment({ namespace: 'deviceshifu', name: 'guarded-deployment' });
  const recreated = await waitFor('the Deployment recreated', async () => {
    const d = await deploymentOf(kube, 'guarded');
    return d !== undefined && d.metadata?.uid !== original.metadata?.uid ? d : undefined;
  });
  t.is(recreated.spec?.template.spec?.containers[0]?.image, image);

  // a JSON patch, as `kubectl patch --type=json` sends: no resourceVersion to race the controller on
  await kube.apps.patchNamespacedDeployment({ namespace: 'deviceshifu', name: 'guarded-deployment',
    body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'example.invalid/hacked:1' }] },
  setHeaderOptions('Content-Type', PatchStrategy.JsonPatch));
  await waitFor('the hand edit seen', async () => (await deploymentOf(kube, 'guarded'))?.metadata?.generation !== recreated.metadata?.generation ? true : undefined);
  const restored = await waitFor('the image restored', async () => {
    const d = await deploymentOf(kube, 'guarded');
    return d?.spec?.template.spec?.containers[0]?.image === image ? d : undefined;
  });
  t.is(restored.metadata?.uid, recreated.metadata?.uid);
});

test.serial('an EdgeDevice whose name cannot name a Service fails with a condition and no bundle', async (t) => {
  const { kube } = await edgeCluster(t);
  await kube.addNode('edge-1');
  await startController(t, kube);
  await createDevice(kube, thermometer('thermo.v2'));
  const failed = await waitForCondition(kube, 'thermo.v2', 'BundleReady', { reason: 'InvalidName' });
  t.is(failed.status?.edgedevicephase, 'Failed');
  t.regex(conditionOf(failed, 'BundleReady')?.message ?? '', /at most 63 lower-case letters/);
  // others are still served
  await createDevice(kube, thermometer('thermo-v2'));
  await waitForCondition(kube, 'thermo-v2', 'Scheduled', { status: 'True' });
  t.pass();
});

test.serial('a node out of pod slots takes no deviceShifu: the device waits saying so, and is placed when a node with a slot arrives', async (t) => {
  const { kube } = await edgeCluster(t);
  // plenty of memory, no pod slot: the scheduler would refuse the pod ("Too many pods")
  await kube.addNode('no-slots', { memory: '64Gi', pods: '0' });
  await startController(t, kube);
  await createDevice(kube, thermometer('refused'));
  const waiting = await waitForCondition(kube, 'refused', 'Scheduled', { status: 'False', reason: 'NoNodeAvailable' });
  t.regex(conditionOf(waiting, 'Scheduled')?.message ?? '', /1 without .* and room for one more pod/);
  t.is(waiting.status?.edgedevicephase, 'Pending');
  t.is(await deploymentOf(kube, 'refused'), undefined);
  await kube.addNode('one-slot', { memory: '1Gi', pods: '1' });
  t.is((await waitForCondition(kube, 'refused', 'Scheduled', { status: 'True' })).status?.nodeName, 'one-slot');
  await waitForCondition(kube, 'refused', 'BundleReady', { status: 'True' });
});
