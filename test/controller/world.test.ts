// The cached records and slimmed copies keep everything their readers use (footprint):
// the Deployment's owner, placement, placed-at, generation and availability; the Service's owner
// and the marker a hand edit is judged by; a pod's node, requests, phase, refusal and device; the
// Node's labels, cordon, taints, capacity, Ready, address.
import test from 'ava';
import type { V1Deployment, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import { deviceShifuDeployment } from '../../controller/bundle/deployment.ts';
import { deviceShifuService } from '../../controller/bundle/service.ts';
import { markerOf } from '../../controller/applied.ts';
import { compactVersion, deploymentRecord, DeviceKeys, podRecord, PodRecord, sameButVersion, serviceRecord, slimEdgeDevice, StringPool, versionOf } from '../../controller/records.ts';
import { LIST_PAGE, listEach, slimNode, World, type EdgeDevice } from '../../controller/world.ts';
import type { KubeClient } from '../../shared/kube/client.ts';
import { createLogger } from '../../shared/log.ts';
import { Informer, type WatchFn } from '../../shared/kube/informer.ts';
import { waitFor } from '../support/wait.ts';
import { candidateNode } from '../../controller/scheduling/candidates.ts';
import { CARRIED_FOR_LABEL, HOSTED_FOR_LABEL, nodeInput, podInput } from '../../controller/drone/slicing/kube-input.ts';
import { clusterFree } from '../../controller/drone/slicing/capacity.ts';
import { publicAddress } from '../../controller/offload/host-plan.ts';

const device = { name: 'thermometer', namespace: 'devices', spec: { protocol: 'HTTP' as const, address: 'x:1' } };
const settings = { namespace: 'deviceshifu', image: 'img', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '64Mi' };

/** The Deployment as the API server returns it: defaults, generation, managed annotations, status. */
function served(): V1Deployment {
  const deployment = deviceShifuDeployment(device, 'cm', { node: 'edge-7', placedAt: '2026-11-22T10:00:00.000Z', reason: 'most free memory (8Gi)' }, settings);
  const metadata = deployment.metadata ?? {};
  Object.assign(metadata, { generation: 3, resourceVersion: '812', uid: 'u-1' });
  Object.assign(metadata.annotations ?? {}, { 'deployment.kubernetes.io/revision': '2' });
  deployment.status = { observedGeneration: 3, availableReplicas: 1, replicas: 1, conditions: [{ type: 'Available', status: 'True', message: 'Deployment has minimum availability.' }] };
  return deployment;
}

test('a Deployment record keeps what placement, readiness and hand-edit checks read, and drops the rest', (t) => {
  const full = served();
  const record = deploymentRecord(full, new StringPool());
  t.deepEqual(record, {
    resourceVersion: 812, device: 'devices/thermometer', node: 'edge-7',
    placedAt: '2026-11-22T10:00:00.000Z', placementReason: 'most free memory (8Gi)',
    generation: 3, observedGeneration: 3, availableReplicas: 1,
  });
  t.is<unknown, unknown>(record.generation, markerOf('Deployment', full), "applied.ts's marker");
  t.like(deploymentRecord({ metadata: { name: 'x', labels: { app: 'x' } } }, new StringPool()), { device: undefined, node: undefined, generation: 0, availableReplicas: 0 });
});

test('a Service record keeps its owner and the marker a hand edit is judged by', (t) => {
  const full: V1Service = deviceShifuService(device, 'deviceshifu', 'NodePort');
  Object.assign(full.metadata ?? {}, { resourceVersion: '9' });
  Object.assign(full.spec ?? {}, { clusterIP: '10.96.0.12', clusterIPs: ['10.96.0.12'], sessionAffinity: 'None', ipFamilies: ['IPv4'] });
  const record = serviceRecord(full, new StringPool());
  t.deepEqual(record, { resourceVersion: 9, device: 'devices/thermometer', marker: markerOf('Service', full) });
  const edited = structuredClone(full);
  Object.assign(edited.spec ?? {}, { type: 'ClusterIP' });
  t.not(serviceRecord(edited, new StringPool()).marker, record.marker, 'a changed type moves the marker');
  // a Service of someone else (no device labels) stays ownerless
  t.is(serviceRecord({ metadata: { name: 'other', labels: { app: 'x' } }, spec: {} }, new StringPool()).device, undefined);
});

test("a pod record keeps node, requests, phase, the scheduler's refusal and its device, and reads back as DRONE's pod", (t) => {
  const pool = new StringPool();
  const labels = { 'shifu.edgenesis.io/edgedevice': 'thermometer', 'shifu.edgenesis.io/edgedevice-namespace': 'devices', [HOSTED_FOR_LABEL]: 'c2' };
  const v1 = (name: string, namespace: string, requests: Array<{ cpu: string; memory: string }>): V1Pod => ({
    metadata: { name, namespace, resourceVersion: '4', labels },
    spec: { nodeName: `edge-${String(7)}`, containers: requests.map((r, i) => ({ name: `c${String(i)}`, resources: { requests: r } })) },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes' }] },
  });
  const pod = v1('thermometer-deployment-1', 'deviceshifu', [{ cpu: '250m', memory: '32Mi' }, { cpu: '1', memory: '1Gi' }]);
  const record = podRecord(pod, 'deviceshifu', pool);
  t.like(record, { key: 'deviceshifu/thermometer-deployment-1', resourceVersion: 4, node: 'edge-7', cpuMillis: 1250, memory: 1056 * 2 ** 20, phase: 'Pending', unschedulable: '0/1 nodes', device: 'devices/thermometer', hostedFor: 'c2' });
  t.deepEqual(podInput(record as V1Pod), podInput(pod));
  t.is(podRecord(v1('x', 'default', []), 'deviceshifu', pool).device, undefined, 'only pods in the deviceShifu namespace serve a device');
  // node names are kept once, however many pods name them
  const other = podRecord(v1('b', 'deviceshifu', []), 'deviceshifu', pool);
  t.is(other.node, record.node);
  t.like(other, { cpuMillis: 0, memory: 0 });
  // a pod carried for a REAR buyer reads back as hosted work, so DRONE's slice does not count it on top of its contract
  const carried = podRecord({ metadata: { name: 'web', namespace: 'rear-cons-a', labels: { [CARRIED_FOR_LABEL]: 'cons-a' } }, spec: { nodeName: 'edge-7', containers: [{ name: 'web', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] }, status: { phase: 'Running' } }, 'deviceshifu', pool);
  t.is(podInput(carried as V1Pod).hostedFor, 'cons-a');
  t.deepEqual(clusterFree([{ name: 'edge-7', ready: true, allocatable: { cpu: 8000, memory: 16_384 * 2 ** 20 } }], [podInput(carried as V1Pod)]), { cpu: 8000, memory: 16_384 * 2 ** 20 });
});

test('a resourceVersion that is a small decimal counter is kept as a number; any other spelling as it is', (t) => {
  t.is(compactVersion('812'), 812);
  for (const opaque of ['0812', '', 'abc', '12a', '99999999999', String(2 ** 30)]) t.is(compactVersion(opaque), opaque);
  t.is(compactVersion(undefined), undefined);
  t.is(versionOf({ resourceVersion: 812 }), '812');
  t.is(versionOf({ resourceVersion: 'abc' }), 'abc');
});

test('an EdgeDevice is cached with the metadata the writes need, spec and status whole', (t) => {
  const full: EdgeDevice = {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice',
    metadata: { name: 't', namespace: 'devices', uid: 'u', resourceVersion: '3', generation: 2, finalizers: ['f'], creationTimestamp: new Date(0), labels: { a: 'b' }, annotations: { c: 'd' } },
    spec: { protocol: 'HTTP', address: 'x:1', configMapName: 'cm' },
    status: { edgedevicephase: 'Running', nodeName: 'edge-1', conditions: [{ type: 'Scheduled', status: 'True', reason: 'NodeChosen', message: 'on edge-1', lastTransitionTime: '2026-11-22T10:00:00Z' }] },
  };
  const slim = slimEdgeDevice(full, new StringPool());
  t.deepEqual(slim, { ...full, metadata: { name: 't', namespace: 'devices', uid: 'u', resourceVersion: '3', generation: 2, finalizers: ['f'] } });
  t.false('attachedNode' in slim.spec, 'absent fields stay absent');
  t.false('deletionTimestamp' in slim.metadata);
});

test('a slim Node keeps what placement and DRONE read, and drops images and node info', (t) => {
  const node: V1Node = {
    metadata: { name: 'edge-1', resourceVersion: '77', labels: { zone: 'a' }, annotations: { big: 'x'.repeat(1000) } },
    spec: { unschedulable: true, taints: [{ key: 'dedicated', value: 'plc', effect: 'NoSchedule' }], podCIDR: '10.0.0.0/24' },
    status: {
      allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True', reason: 'KubeletReady' }],
      addresses: [{ type: 'InternalIP', address: '10.1.2.3' }],
      images: Array.from({ length: 50 }, (_, i) => ({ names: [`registry.example/image-${String(i)}:latest`], sizeBytes: 1e8 })),
    },
  };
  const slim = slimNode(node);
  const context = { now: 0, staleMs: 1, requireEdgeNode: false };
  t.deepEqual(candidateNode(slim, undefined, undefined, context), candidateNode(node, undefined, undefined, context));
  t.deepEqual(nodeInput(slim), nodeInput(node));
  t.deepEqual(slim.metadata, { name: 'edge-1', resourceVersion: '77', labels: { zone: 'a' } });
  t.is(slim.status?.images, undefined);
  t.deepEqual(slim.status?.conditions?.map((c) => c.type), ['Ready']);
  // uncordoned, it is the node whose address DRONE publishes
  slim.spec = {};
  t.is(publicAddress(undefined, [slim]), '10.1.2.3');
});

test('lists are read page by page through the continue token, each page slimmed before the next', async (t) => {
  const pods = Array.from({ length: 600 }, (_, i) => ({ metadata: { name: `p${String(i)}`, namespace: 'x', resourceVersion: '5', managedFields: [{ manager: 'kubelet' }] } }));
  const asked: Array<Record<string, unknown>> = [];
  const slimmedBefore: number[] = [];
  let slimmed = 0;
  const client = {
    request: <T>(_method: string, _path: string, options: { query?: Record<string, unknown> } = {}): Promise<T> => {
      const query = options.query ?? {};
      asked.push(query);
      slimmedBefore.push(slimmed);
      const start = Number(query.continue ?? 0);
      const limit = Number(query.limit);
      const next = start + limit < pods.length ? String(start + limit) : undefined;
      return Promise.resolve({ metadata: { resourceVersion: '99', continue: next }, items: pods.slice(start, start + limit) } as T);
    },
  };
  const items: Array<{ metadata: { name?: string } }> = [];
  const resourceVersion = await listEach(client, '/api/v1/pods', { fieldSelector: 'status.phase!=Failed' }, (p) => {
    slimmed += 1;
    items.push({ metadata: { name: p.metadata?.name } });
  });
  t.is(items.length, 600);
  t.deepEqual(items[599], { metadata: { name: 'p599' } });
  t.is(resourceVersion, '99');
  const starts = Array.from({ length: Math.ceil(600 / LIST_PAGE) }, (_, i) => i * LIST_PAGE);
  t.true(starts.length > 1);
  t.deepEqual(asked, starts.map((start) => ({ fieldSelector: 'status.phase!=Failed', limit: LIST_PAGE, continue: start === 0 ? undefined : String(start) })));
  t.deepEqual(slimmedBefore, starts, 'each page slimmed before the next is asked for');
});

test('an informer with a projection lists page by page and caches records: events carry the record and its key', async (t) => {
  const pool = new StringPool();
  const v1 = (name: string, resourceVersion: string, nodeName: string): V1Pod => ({ metadata: { name, namespace: 'x', resourceVersion }, spec: { nodeName, containers: [] }, status: { phase: 'Running' } });
  let listed = 0;
  const client = {
    request: <T>(_method: string, _path: string, options: { query?: Record<string, unknown> } = {}): Promise<T> => {
      listed += 1;
      const first = options.query?.continue === undefined;
      const items = first ? [v1('a', '1', 'n1'), v1('b', '1', 'n1')] : [v1('c', '1', 'n2')];
      return Promise.resolve({ metadata: { resourceVersion: '5', continue: first ? 'next' : undefined }, items } as T);
    },
  };
  const watched: string[] = [];
  const watch: WatchFn = async (_path, query, onEvent, signal) => {
    watched.push(String(query.resourceVersion));
    if (watched.length === 1) {
      onEvent('MODIFIED', v1('a', '1', 'n1'));
      onEvent('MODIFIED', v1('b', '6', 'n2'));
      onEvent('DELETED', v1('c', '7', 'n2'));
    }
    await new Promise<void>((resolve) => { signal.addEventListener('abort', () => { resolve(); }); });
  };
  const informer = new Informer<V1Pod, PodRecord>({
    path: '/api/v1/pods', watch, project: (p) => podRecord(p, 'deviceshifu', pool), versionOf,
    listEach: (each) => listEach(client, '/api/v1/pods', undefined, (o) => { each(o); }),
  });
  const events: string[] = [];
  for (const event of ['add', 'update', 'delete'] as const) informer.on(event, (record, key) => { events.push(`${event} ${key} ${record.node ?? ''}`); });
  await informer.start();
  t.is(listed, 2, 'two pages');
  t.true(informer.get('a', 'x') instanceof PodRecord);
  await waitFor('the watch events', () => events.length === 5 ? true : undefined);
  await informer.stop();
  t.deepEqual(events, ['add x/a n1', 'add x/b n1', 'add x/c n2', 'update x/b n2', 'delete x/c n2'], 'an unchanged resourceVersion is no update');
  t.deepEqual(watched, ['5']);
  t.is(informer.size, 2);
});

test('deviceShifu records share the cached EdgeDevice key, which is released when the device goes', async (t) => {
  const edgeDevice = (name: string, resourceVersion: string): EdgeDevice => ({ apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice',
    metadata: { name, namespace: 'devices', resourceVersion }, spec: { protocol: 'HTTP', address: 'x:1' } });
  const lists: Record<string, unknown[]> = { edgedevices: [edgeDevice('thermometer', '1'), edgeDevice('camera', '2')], deployments: [served()] };
  const client = {
    request: <T>(_method: string, path: string): Promise<T> =>
      Promise.resolve({ metadata: { resourceVersion: '5' }, items: lists[path.split('/').pop() ?? ''] ?? [] } as T),
    watch: (path: string, _query: unknown, onEvent: (type: string, object: unknown) => void, signal: AbortSignal): Promise<void> => {
      if (path.endsWith('/edgedevices')) onEvent('DELETED', edgeDevice('camera', '3'));
      return new Promise<void>((resolve) => { signal.addEventListener('abort', () => { resolve(); }); });
    },
  };
  const world = new World(client as unknown as KubeClient, 'deviceshifu', createLogger('test', { level: 'silent' }));
  const keys = world.strings.deviceKeys;
  t.is(keys.size, 0);
  await world.start();
  try {
    await waitFor('the camera deleted', () => world.devices.size === 1 ? true : undefined);
    t.deepEqual(world.devices.list().map((d) => d.metadata.name), ['thermometer']);
    t.is(keys.size, 1, "the deleted device's key is released: the pool holds cached devices only");
    t.is(keys.shared('devices/thermometer'), 'devices/thermometer');
    t.is(world.deployments.get('thermometer-deployment', 'deviceshifu')?.device, 'devices/thermometer');
  } finally {
    await world.stop();
  }
});

test('device keys: the first copy held is the one shared; release and unknown keys', (t) => {
  const keys = new DeviceKeys();
  keys.hold('devices/a');
  keys.hold('devices/a');
  t.is(keys.size, 1);
  t.is(keys.shared('devices/a'), 'devices/a');
  t.is(keys.shared('devices/b'), 'devices/b', 'a key not held is given back as it is, not kept');
  t.is(keys.size, 1);
  keys.release('devices/a');
  keys.release('devices/a');
  t.is(keys.size, 0);
});

test("the pod index follows the pod informer's events, each taking back the version it replaces", async (t) => {
  const labels = { 'shifu.edgenesis.io/edgedevice': 'thermometer', 'shifu.edgenesis.io/edgedevice-namespace': 'devices' };
  const pod = (resourceVersion: string, nodeName: string, memory: string): V1Pod => ({ metadata: { name: 'thermometer-1', namespace: 'deviceshifu', resourceVersion, labels },
    spec: { nodeName, containers: [{ name: 'c', resources: { requests: { cpu: '100m', memory } } }] }, status: { phase: 'Running' } });
  let push: ((type: string, object: unknown) => void) | undefined;
  const client = {
    request: <T>(_method: string, path: string): Promise<T> =>
      Promise.resolve({ metadata: { resourceVersion: '5' }, items: path === '/api/v1/pods' ? [pod('1', 'n1', '1Gi')] : [] } as T),
    watch: (path: string, _query: unknown, onEvent: (type: string, object: unknown) => void, signal: AbortSignal): Promise<void> => {
      if (path === '/api/v1/pods') push = onEvent;
      return new Promise<void>((resolve) => { signal.addEventListener('abort', () => { resolve(); }); });
    },
  };
  const world = new World(client as unknown as KubeClient, 'deviceshifu', createLogger('test', { level: 'silent' }));
  await world.start();
  try {
    const index = world.podIndex;
    const thermometer = { name: 'thermometer', namespace: 'devices' };
    t.deepEqual(index.requestsOn('n1'), { cpuMillis: 100, memory: 2 ** 30, pods: 1 });
    const send = await waitFor('the pod watch', () => push);
    send('MODIFIED', pod('2', 'n2', '2Gi'));
    t.is(index.requestsOn('n1'), undefined, 'the moved pod left n1');
    t.deepEqual(index.requestsOn('n2'), { cpuMillis: 100, memory: 2 * 2 ** 30, pods: 1 });
    t.is(index.podsOf(thermometer)[0]?.node, 'n2');
    send('MODIFIED', pod('2', 'n2', '2Gi'));
    t.deepEqual(index.requestsOn('n2'), { cpuMillis: 100, memory: 2 * 2 ** 30, pods: 1 }, 'an unchanged version is counted once');
    // the DELETED copy may differ from the cached one: what the cached one added is taken back
    send('DELETED', pod('3', 'n9', '5Gi'));
    t.is(index.requestsOn('n2'), undefined);
    t.is(index.nodeCount, 0);
    t.is(index.size, 0);
    t.deepEqual(index.podsOf(thermometer), []);
  } finally {
    await world.stop();
  }
});

test('a record that changed only its resourceVersion is the same to its readers (no reconcile of the owner)', (t) => {
  const pool = new StringPool();
  const labels = { 'shifu.edgenesis.io/edgedevice': 'thermometer', 'shifu.edgenesis.io/edgedevice-namespace': 'devices' };
  const pod = (resourceVersion: string, phase: string, heartbeat: string): V1Pod => ({ metadata: { name: 'p', namespace: 'deviceshifu', resourceVersion, labels },
    spec: { nodeName: 'n1', containers: [] }, status: { phase, conditions: [{ type: 'Ready', status: 'True', lastProbeTime: heartbeat as unknown as Date }] } });
  const first = podRecord(pod('1', 'Running', 'a'), 'deviceshifu', pool);
  t.true(sameButVersion(podRecord(pod('2', 'Running', 'b'), 'deviceshifu', pool), first), 'a heartbeat the record leaves out');
  t.false(sameButVersion(podRecord(pod('3', 'Pending', 'b'), 'deviceshifu', pool), first), 'the phase, which readiness reads');
  t.false(sameButVersion(first, undefined), 'an add has no previous version');
  const deployment = deploymentRecord(served(), pool);
  const scaled = served();
  Object.assign(scaled.metadata ?? {}, { resourceVersion: '813' });
  t.true(sameButVersion(deploymentRecord(scaled, pool), deployment));
  Object.assign(scaled.status ?? {}, { availableReplicas: 0 });
  t.false(sameButVersion(deploymentRecord(scaled, pool), deployment), 'availability changed');
});
