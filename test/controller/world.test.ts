// The slimmed cache copies keep everything the reconciler reads (issue 3, footprint): the
// Deployment's owner, placement, placed-at, generation and availability; the Service's owner and
// the fields a hand edit is judged by; the Node's labels, cordon, taints, capacity, Ready, address.
import test from 'ava';
import type { V1Deployment, V1Node, V1Service } from '@kubernetes/client-node';
import { deviceShifuDeployment, placedNode } from '../../controller/bundle/deployment.ts';
import { ANNOTATION_PLACED_AT, ANNOTATION_PLACEMENT_REASON, deviceOf } from '../../controller/bundle/names.ts';
import { deviceShifuService } from '../../controller/bundle/service.ts';
import { LIST_PAGE, pagedList, slimDeployment, slimNode, slimService } from '../../controller/world.ts';
import { candidateNode } from '../../controller/scheduling/candidates.ts';
import { nodeInput } from '../../controller/drone/slicing/kube-input.ts';
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

test('a slim Deployment keeps what placement, readiness and hand-edit checks read, and drops the pod template', (t) => {
  const full = served();
  const slim = slimDeployment(full);
  t.is(placedNode(slim), 'edge-7');
  t.deepEqual(deviceOf(slim.metadata?.labels), { name: 'thermometer', namespace: 'devices' });
  t.deepEqual(slim.metadata?.annotations, { [ANNOTATION_PLACED_AT]: '2026-11-22T10:00:00.000Z', [ANNOTATION_PLACEMENT_REASON]: 'most free memory (8Gi)' });
  t.like(slim.metadata, { name: 'thermometer-deployment', namespace: 'deviceshifu', resourceVersion: '812', generation: 3 });
  t.deepEqual(slim.status, { observedGeneration: 3, availableReplicas: 1 });
  t.deepEqual(slim.spec?.template.spec?.containers, []);
  t.true(JSON.stringify(slim).length * 3 < JSON.stringify(full).length, 'a third of the size or less');
});

test('a slim Service keeps its owner, ports, selector and type', (t) => {
  const full: V1Service = deviceShifuService(device, 'deviceshifu', 'NodePort');
  Object.assign(full.metadata ?? {}, { resourceVersion: '9' });
  Object.assign(full.spec ?? {}, { clusterIP: '10.96.0.12', clusterIPs: ['10.96.0.12'], sessionAffinity: 'None', ipFamilies: ['IPv4'] });
  const slim = slimService(full);
  t.deepEqual(deviceOf(slim.metadata?.labels), { name: 'thermometer', namespace: 'devices' });
  t.deepEqual(slim.spec, { ports: full.spec?.ports, selector: full.spec?.selector, type: 'NodePort' });
  t.is(slim.metadata?.resourceVersion, '9');
  // a Service of someone else (no device labels) stays ownerless
  t.is(deviceOf(slimService({ metadata: { name: 'other', labels: { app: 'x' } }, spec: {} }).metadata?.labels), undefined);
});

test('a slim Node keeps what placement and DRONE read, and drops images and node info', (t) => {
  const node: V1Node = {
    metadata: { name: 'edge-1', resourceVersion: '77', labels: { zone: 'a' }, annotations: { big: 'x'.repeat(1000) } },
    spec: { unschedulable: true, taints: [{ key: 'dedicated', value: 'plc', effect: 'NoSchedule' }], podCIDR: '10.0.0.0/24' },
    status: {
      allocatable: { cpu: '4', memory: '8Gi' }, capacity: { cpu: '4', memory: '8Gi' },
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
  const list = await pagedList(client, '/api/v1/pods', { fieldSelector: 'status.phase!=Failed' }, (p: { metadata: { name: string } }) => {
    slimmed += 1;
    return { metadata: { name: p.metadata.name } };
  });
  t.is(list.items.length, 600);
  t.deepEqual(list.items[599], { metadata: { name: 'p599' } });
  t.is(list.metadata?.resourceVersion, '99');
  const starts = Array.from({ length: Math.ceil(600 / LIST_PAGE) }, (_, i) => i * LIST_PAGE);
  t.true(starts.length > 1);
  t.deepEqual(asked, starts.map((start) => ({ fieldSelector: 'status.phase!=Failed', limit: LIST_PAGE, continue: start === 0 ? undefined : String(start) })));
  t.deepEqual(slimmedBefore, starts, 'each page slimmed before the next is asked for');
});
