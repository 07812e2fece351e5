// What the controller last applied (AppliedObjects): an object is written again only when it
// changed, or when the cache shows someone else changed or deleted it. Pure, no cluster.
import test from 'ava';
import type { V1Deployment, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { AppliedObjects, appliedHash, hashOf } from '../../controller/applied.ts';
import { ANNOTATION_APPLIED } from '../../controller/bundle/names.ts';

const service = (port: number): V1Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'apps' }, spec: { ports: [{ port }] } });
const slice = (address: string): V1EndpointSlice => ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4', metadata: { name: 'db-remote', namespace: 'apps' }, endpoints: [{ addresses: [address] }], ports: [{ port: 30001 }] });
const deployment = (generation: number): V1Deployment => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'apps', generation } });

test('a new object is applied; then only when it changed here or moved in the cache', (t) => {
  const applied = new AppliedObjects();
  const wanted = service(5432);
  t.true(applied.needs('apps/shop', wanted, undefined), 'never applied');
  applied.record('apps/shop', wanted, service(5432));
  t.true(applied.has('apps/shop', 'Service'));
  t.false(applied.needs('apps/shop', wanted, service(5432)), 'unchanged, and the cache agrees');
  t.true(applied.needs('apps/shop', service(5433), service(5432)), 'what this controller wants changed');
  t.true(applied.needs('apps/shop', wanted, service(80)), 'edited by hand');
  t.true(applied.needs('apps/shop', wanted, undefined), 'deleted by hand');
});

test('EndpointSlices are judged by endpoints and ports, Deployments by generation', (t) => {
  const applied = new AppliedObjects();
  applied.record('apps/shop', slice('192.0.2.2'), slice('192.0.2.2'));
  t.false(applied.needs('apps/shop', slice('192.0.2.2'), slice('192.0.2.2')));
  t.true(applied.needs('apps/shop', slice('192.0.2.2'), slice('192.0.2.9')), 'endpoint edited by hand');
  applied.record('apps/shop', deployment(1), deployment(3));
  t.false(applied.needs('apps/shop', deployment(1), deployment(3)), 'the generation the API server answered with');
  t.true(applied.needs('apps/shop', deployment(1), deployment(4)), 'spec edited since');
});

test('records belong to an owner and go with it, alone or with everything under a prefix', (t) => {
  const applied = new AppliedObjects();
  applied.record('apps/shop', service(5432), service(5432));
  t.true(applied.needs('apps/other', service(5432), service(5432)), 'another owner applied nothing yet');
  applied.forget('apps/shop');
  t.false(applied.has('apps/shop', 'Service'));
  t.true(applied.needs('apps/shop', service(5432), service(5432)));
  for (const owner of ['apps/shop/api', 'apps/shop/db', 'apps/shop-2/db']) applied.record(owner, service(5432), service(5432));
  applied.forgetUnder('apps/shop/');
  t.deepEqual(['apps/shop/api', 'apps/shop/db', 'apps/shop-2/db'].map((o) => applied.has(o, 'Service')), [false, false, true]);
});

test("a restarted controller trusts its applied-hash annotation only while nobody else wrote the object", (t) => {
  const hash = hashOf(service(5432));
  const metadata = { annotations: { [ANNOTATION_APPLIED]: hash.toString(36) } };
  const ours = { manager: 'edgeshifu-controller', operation: 'Apply' };
  const revision = (manager: string): object => ({ manager, operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } } } });
  const status = { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': {} } };
  t.is(appliedHash(metadata, [ours, revision('kube-controller-manager'), status]), hash, 'its own apply, the revision annotation, status');
  t.is(appliedHash(metadata, [ours, revision('k3s')]), hash, 'a controller-manager under another name (k3s embeds it)');
  const annotated = { manager: 'kubectl-annotate', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:shifu.edgenesis.io/placed-at': {} } } } };
  t.is(appliedHash(metadata, [ours, annotated]), undefined, 'an annotation of its own changed by hand');
  t.is(appliedHash(metadata, [ours, { manager: 'kubectl-edit', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }]), undefined, 'edited by hand');
  t.is(appliedHash(metadata, [ours, { manager: 'kubectl', operation: 'Update', subresource: 'scale' }]), undefined, 'scaled by hand');
  t.is(appliedHash(metadata, undefined), undefined, 'writers unknown');
  t.is(appliedHash({}, [ours]), undefined, 'no annotation (applied by an older controller)');
  t.is(appliedHash({ annotations: { [ANNOTATION_APPLIED]: 'not a hash!' } }, [ours]), undefined);
});
