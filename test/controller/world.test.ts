// The slimmed cache copies keep everything the reconciler reads (issue 3, footprint): the
// Deployment's owner, placement, placed-at, generation and availability; the Service's owner and
// the fields a hand edit is judged by.
import test from 'ava';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { deviceShifuDeployment, placedNode } from '../../controller/bundle/deployment.ts';
import { ANNOTATION_PLACED_AT, deviceOf } from '../../controller/bundle/names.ts';
import { deviceShifuService } from '../../controller/bundle/service.ts';
import { slimDeployment, slimService } from '../../controller/world.ts';

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
  t.deepEqual(slim.metadata?.annotations, { [ANNOTATION_PLACED_AT]: '2026-11-22T10:00:00.000Z' });
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
