// The three EdgeDevice status writers, with their own code, against the real API server, their
// writes interleaved: the controller (merge patch with a resourceVersion precondition: Scheduled,
// BundleReady, nodeName, observedGeneration, the phase until the bundle is ready), deviceShifu
// (merge patch of edgedevicephase alone) and shifud on two nodes (server-side apply, one field
// manager per node: its links entry, and Reachable on the node that speaks for the device).
// After every write every other writer's field is still there.
import test from 'ava';
import { sharedKube, freshNamespace } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { KubeClient } from '../../shared/kube/client.ts';
import { ApiWriter } from '../../controller/kube-writer.ts';
import { nextStatus } from '../../controller/status.ts';
import type { EdgeDevice } from '../../controller/world.ts';
import { edgeDevicePhasePatcher } from '../../deviceshifu/kube/status.ts';
import { KubeEdgeDeviceStatusWriter } from '../../shifud/kube-clients.ts';
import { API_VERSION, EDGE_DEVICE } from '../../shared/crds/resources.ts';

test('no status writer overwrites another\'s field, whatever the order of their writes', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'owners');
  const client = KubeClient.fromKubeconfig(kube.kubeconfigPath);
  t.teardown(() => { client.close(); });
  const path = `/apis/${API_VERSION}/namespaces/${namespace}/edgedevices/thermo`;
  await client.request('POST', `/apis/${API_VERSION}/namespaces/${namespace}/edgedevices`, { body: { apiVersion: API_VERSION, kind: EDGE_DEVICE.kind, metadata: { name: 'thermo', namespace }, spec: { protocol: 'HTTP', address: '10.0.0.5:80', configMapName: 'cm' } } });
  const read = (): Promise<EdgeDevice> => client.request<EdgeDevice>('GET', path);
  const controller = new ApiWriter(client);
  const deviceShifu = edgeDevicePhasePatcher(client, 'thermo', namespace);
  const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const shifud = (node: string, speaks: boolean) => async (): Promise<void> => {
    const writer = new KubeEdgeDeviceStatusWriter(client, node);
    await writer.applyStatus({
      apiVersion: API_VERSION, kind: EDGE_DEVICE.kind, metadata: { name: 'thermo', namespace },
      status: {
        links: [{ node, type: 'Ethernet', lastSeenTime: now() }],
        ...(speaks ? { conditions: [{ type: 'Reachable', status: 'True', reason: 'Online', message: `answers (seen from node ${node})`, lastTransitionTime: now() }] } : {}),
      },
    });
  };
  const controllerWrite = async (): Promise<void> => {
    const device = await read();
    const view = { scheduled: { type: 'Scheduled', status: 'True', reason: 'Placed', message: 'on edge-1' }, bundleReady: { type: 'BundleReady', status: 'True', reason: 'Available', message: 'ready' }, nodeName: 'edge-1' } as const;
    await controller.patchStatus(device, nextStatus(device.status, view, device.metadata.generation ?? 1, now()));
  };
  const writers: Array<[string, () => Promise<void>]> = [
    ['controller', controllerWrite],
    ['shifud on node-a', shifud('node-a', true)],
    ['deviceShifu', () => deviceShifu('Running')],
    ['shifud on node-b', shifud('node-b', false)],
  ];
  const orders = [[0, 1, 2, 3], [3, 2, 1, 0], [1, 0, 3, 2], [2, 0, 1, 0], [0, 3, 0, 2, 1, 0]];
  const written = new Set<string>();
  for (const order of orders) {
    for (const i of order) {
      const [who, write] = writers[i] ?? ['?', () => Promise.resolve()];
      await write();
      written.add(who);
      const status = (await read()).status ?? {};
      const types = (status.conditions ?? []).map((c) => c.type).sort();
      const nodes = (status.links ?? []).map((l) => l.node).sort();
      if (written.has('controller')) {
        t.true(types.includes('Scheduled') && types.includes('BundleReady'), `after ${who}: the controller's conditions (${types.join(', ')})`);
        t.is(status.nodeName, 'edge-1', `after ${who}: nodeName`);
      }
      if (written.has('shifud on node-a')) {
        t.true(types.includes('Reachable'), `after ${who}: shifud's Reachable (${types.join(', ')})`);
        t.true(nodes.includes('node-a'), `after ${who}: node-a's link (${nodes.join(', ')})`);
      }
      if (written.has('shifud on node-b')) t.true(nodes.includes('node-b'), `after ${who}: node-b's link (${nodes.join(', ')})`);
      if (written.has('deviceShifu')) t.is(status.edgedevicephase, 'Running', `after ${who}: deviceShifu's phase`);
    }
  }
});
