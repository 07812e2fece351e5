// The pure core of offloading, without a cluster: jobs from DroneFederatedDeployments, status
// transitions, leases, host verdicts and the objects composed on each side; bad input refused
// with a message naming what to fix.
import test from 'ava';
import type { V1Deployment, V1Node, V1Service } from '@kubernetes/client-node';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { appId, hostedNames, jobOf, revisionOf, validateDeployment, workloadOf, type DroneFederatedDeployment } from '../../controller/offload/workload.ts';
import { applyDecision, deploymentOfApp, leasesFor, observe, readiness, returnLost, serviceClash, startAuction, statusChanged, unplaced } from '../../controller/offload/origin-plan.ts';
import { available, hostVerdict, leasedSpec, publicAddress } from '../../controller/offload/host-plan.ts';
import { dependencyEnv, hostObjects, reachOf, remoteObjects, type HostRequest } from '../../controller/offload/objects.ts';
import { twoComponentApp } from './support.ts';

function dfd(overrides: Partial<DroneFederatedDeployment['spec']> = {}): DroneFederatedDeployment {
  const body = twoComponentApp('shop') as unknown as DroneFederatedDeployment;
  return { ...body, metadata: { name: body.metadata.name, namespace: body.metadata.namespace, uid: 'u1', generation: 1 }, spec: { ...body.spec, ...overrides } };
}

test('a job asks for each component\'s requests times its replicas, with the placement lists', (t) => {
  const d = dfd({ placement: { clusters: { allowed: ['b', 'c'], denied: ['d'] } } });
  const job = jobOf(d, { origin: 'a', app: appId(d, 1), components: ['api', 'db'], excluded: ['c'] });
  t.is(job.app, 'apps.shop.1');
  t.deepEqual(job.components.map((c) => [c.name, c.resources.cpu, c.resources.memory]), [['api', 500, 512], ['db', 500, 512]]);
  t.deepEqual(job.components[0]?.clustersWhitelist, ['b', 'c']);
  t.deepEqual(job.components[0]?.clustersBlacklist, ['d', 'c']);
  t.deepEqual(job.components[0]?.bootDependencies, ['db']);
  // a re-placement auction for api alone does not wait for db, placed earlier
  t.deepEqual(jobOf(d, { origin: 'a', app: appId(d, 2), components: ['api'] }).components[0]?.bootDependencies, []);
});

test('bad templates are refused with a message naming the component and the fix', (t) => {
  const noImage = dfd();
  const first = noImage.spec.components[0];
  if (first === undefined) throw new Error('no component');
  first.template.spec.template.spec = { containers: [{ name: 'x' }] };
  const e1 = t.throws(() => { validateDeployment(noImage); });
  t.true(isEdgeshifuError(e1, 'invalid'));
  t.regex(e1.message, /component api: container 0 has no image/);

  const noContainers = dfd();
  const c = noContainers.spec.components[1];
  if (c === undefined) throw new Error('no component');
  c.template.spec.template.spec = {};
  t.regex(t.throws(() => { validateDeployment(noContainers); }).message, /component db: template\.spec\.template\.spec\.containers must list at least one container/);

  const badQuantity = dfd();
  const q = badQuantity.spec.components[0];
  if (q === undefined) throw new Error('no component');
  q.template.spec.template.spec = { containers: [{ name: 'x', image: 'i', resources: { requests: { cpu: 'lots' } } }] };
  t.regex(t.throws(() => { validateDeployment(badQuantity); }).message, /"lots" is not a Kubernetes quantity/);
});

test('app ids name their deployment and attempt, dots in names included', (t) => {
  t.deepEqual(deploymentOfApp('apps.shop.v2.7'), { namespace: 'apps', name: 'shop.v2', attempt: 7 });
  t.is(deploymentOfApp('nonsense'), undefined);
  t.is(deploymentOfApp('apps.shop.x'), undefined);
});

test('status moves SCHEDULING → PENDING → RUNNING, and lost components go back to SCHEDULING', (t) => {
  const d = dfd();
  let status = startAuction(d, {});
  t.is(status.phase, 'SCHEDULING');
  t.deepEqual(unplaced(status), ['api', 'db']);
  t.is(applyDecision(status, { type: 'placed', app: 'apps.shop.0', origin: 'a', placement: { api: 'b' } }, 'a'), status, 'a decision of another auction changes nothing');
  status = applyDecision(status, { type: 'placed', app: 'apps.shop.1', origin: 'a', placement: { api: 'b', db: 'a' } }, 'a');
  t.is(status.phase, 'PENDING');
  t.deepEqual(status.components?.map((c) => [c.name, c.cluster, c.phase]), [['api', 'b', 'ASSIGNED'], ['db', 'a', 'SCHEDULED']]);
  t.deepEqual(readiness(d, status, 'api'), { launch: false, dependencies: {} }, 'api waits for db');
  // db reachable but not LAUNCHED yet: api's lease says nothing new (one lease and one host write less)
  const connected = observe(status, new Map([['db', { phase: 'CONNECTED' as const, endpoint: 'db.apps.svc:5432' }]]));
  t.deepEqual(readiness(d, connected, 'api'), { launch: false, dependencies: {} }, 'a dependency\'s endpoint goes with the go, not before');
  status = observe(status, new Map([['db', { phase: 'LAUNCHED' as const, endpoint: 'db.apps.svc:5432' }]]));
  t.deepEqual(readiness(d, status, 'api'), { launch: true, dependencies: { db: 'db.apps.svc:5432' } });
  t.is(status.phase, 'PENDING');
  status = observe(status, new Map([['api', { phase: 'LAUNCHED' as const, endpoint: '192.0.2.2:30001' }]]));
  t.is(status.phase, 'RUNNING');
  status = returnLost(status, new Map([['api', 'b has not answered for 7 s']]));
  t.is(status.phase, 'SCHEDULING');
  t.deepEqual(unplaced(status), ['api']);
  const again = startAuction(d, status);
  t.is(again.app, 'apps.shop.2');
  t.deepEqual(again.components?.find((c) => c.name === 'db')?.cluster, 'a', 'what still runs stays put');
});

test('a failed agreement fails the deployment with the auction\'s reason', (t) => {
  const status = applyDecision(startAuction(dfd(), {}), { type: 'failed', app: 'apps.shop.1', origin: 'a', reason: 'no cluster could host api' }, 'a');
  t.is(status.phase, 'FAILED');
  t.is(status.reason, 'no cluster could host api');
  t.true(status.components?.every((c) => c.phase === 'FAILED'));
});

test('leases go to each remote host with the workload, its revision and whether to launch', (t) => {
  const d = dfd({ overrides: [{ cluster: 'b', component: 'api', replicas: 3 }, { cluster: 'b', component: 'db', image: 'x' }] });
  const status = applyDecision(startAuction(d, {}), { type: 'placed', app: 'apps.shop.1', origin: 'a', placement: { api: 'b', db: 'b' } }, 'a');
  const leases = leasesFor(d, status, 'a', 30);
  t.deepEqual(leases.map((l) => [l.to, l.component, l.launch]), [['b', 'api', false], ['b', 'db', true]]);
  const api = d.spec.components[0];
  if (api === undefined) throw new Error('no api');
  t.deepEqual(workloadOf(d.spec, api).overrides, [{ cluster: 'b', component: 'api', replicas: 3 }], 'each component gets only its overrides');
  t.is(leases[0]?.revision, revisionOf(workloadOf(d.spec, api)));
  t.not(revisionOf(workloadOf(dfd().spec, api)), leases[0]?.revision, 'a change is a new revision (MOD)');
  t.deepEqual(leasesFor(d, { ...status, phase: 'DONE' }, 'a', 30), []);
});

function request(spec: Partial<HostRequest['spec']> = {}, status: HostRequest['status'] = {}): HostRequest {
  const d = dfd({ overrides: [{ cluster: 'b', replicas: 2, env: [{ name: 'MODE', value: 'remote' }] }] });
  const db = d.spec.components[1];
  if (db === undefined) throw new Error('no db');
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'HostRequest',
    metadata: { name: 'db-1', namespace: 'drone-a', uid: 'h1', creationTimestamp: new Date(1_000_000).toISOString() as unknown as Date },
    spec: { origin: 'a', app: 'apps.shop.1', component: 'db', requestId: 'r', resources: { cpu: '500m', memory: '512Mi' }, workload: workloadOf(d.spec, db), leaseSeconds: 10, launch: true, ...spec },
    status,
  };
}

test('a host reports ACCEPTED until go, then SCHEDULED, CONNECTED and LAUNCHED; an unrenewed lease expires', (t) => {
  const now = 1_000_000 + 5_000;
  t.like(hostVerdict({ request: request({ launch: false }), now }), { expired: false, phase: 'ACCEPTED' });
  t.like(hostVerdict({ request: request(), now }), { expired: false, phase: 'SCHEDULED' });
  const deployment: V1Deployment = { metadata: { generation: 1 }, spec: { replicas: 2, selector: {}, template: {} }, status: { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 1 } };
  const service: V1Service = { spec: { ports: [{ port: 5432, nodePort: 30007 }] } };
  t.like(hostVerdict({ request: request(), deployment, service, now }), { expired: false, phase: 'SCHEDULED', message: 'no node address to expose it at' });
  t.like(hostVerdict({ request: request(), deployment, service, address: '192.0.2.2', now }), { expired: false, phase: 'CONNECTED', endpoint: '192.0.2.2:30007' });
  const up: V1Deployment = { metadata: { generation: 1 }, spec: { replicas: 2, selector: {}, template: {} }, status: { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2 } };
  t.true(available(up));
  t.like(hostVerdict({ request: request(), deployment: up, service, address: '192.0.2.2', now }), { expired: false, phase: 'LAUNCHED' });
  t.like(hostVerdict({ request: request(), now: 1_000_000 + 10_001 }), { expired: true });
  t.like(hostVerdict({ request: request({}, { lastRenewTime: new Date(1_009_000).toISOString() }), now: 1_000_000 + 10_001 }), { expired: false }, 'a renewal extends it');
});

test('the host runs the component with its overrides, dependencies and origin label, exposed on a NodePort', (t) => {
  const r = request({ dependencies: { 'cache-x': '192.0.2.3:30100' } });
  const { deployment, service } = hostObjects(r, r.spec.workload as never, 'b', { ...hostedNames('a', 'apps.shop.1', 'db'), annotations: { applied: '1' } });
  t.is(deployment.metadata?.namespace, 'drone-a');
  t.is(deployment.spec?.replicas, 2, 'override for b');
  t.is(deployment.spec?.template.metadata?.labels?.['drone.edgeshifu.io/hosted-for'], 'a');
  t.deepEqual(deployment.spec?.template.spec?.containers[0]?.env, [
    { name: 'CACHE_X_SERVICE_HOST', value: '192.0.2.3' }, { name: 'CACHE_X_SERVICE_PORT', value: '30100' }, { name: 'MODE', value: 'remote' },
  ]);
  t.is(deployment.metadata?.ownerReferences?.[0]?.uid, 'h1', 'garbage-collected with its HostRequest');
  t.is(service.spec?.type, 'NodePort');
  t.deepEqual(dependencyEnv({}), []);
});

test('the origin reaches a remote component under its own name: EndpointSlice for an IP, ExternalName for a host name', (t) => {
  const d = dfd();
  const db = d.spec.components[1];
  if (db === undefined) throw new Error('no db');
  const byIp = remoteObjects(d, { component: 'db', reach: reachOf('192.0.2.2:30007', undefined, workloadOf(d.spec, db).ports) });
  t.is(byIp.service.metadata?.name, 'db');
  t.is(byIp.service.spec?.selector, undefined);
  t.is(byIp.service.spec?.ports?.[0]?.port, 5432);
  t.deepEqual(byIp.slice?.endpoints?.[0]?.addresses, ['192.0.2.2']);
  t.is(byIp.slice?.ports?.[0]?.port, 30007);
  t.is(byIp.slice?.metadata?.labels?.['kubernetes.io/service-name'], 'db');
  const byName = remoteObjects(d, { component: 'db', reach: reachOf('edge-2.example:30007', undefined, workloadOf(d.spec, db).ports) });
  t.is(byName.service.spec?.type, 'ExternalName');
  t.is(byName.slice, undefined);
});

test('the public address is the configured one, else the first Ready node\'s InternalIP', (t) => {
  const node = (name: string, ready: boolean, ip?: string): V1Node => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], addresses: ip === undefined ? [] : [{ type: 'InternalIP', address: ip }] } });
  t.is(publicAddress('edge.example', [node('n1', true, '10.0.0.1')]), 'edge.example');
  t.is(publicAddress(undefined, [node('n2', true, '10.0.0.2'), node('n1', false, '10.0.0.1'), node('n0', true)]), '10.0.0.2');
  t.is(publicAddress(undefined, []), undefined);
});

test('a host\'s admission policy: images only from the neighbour\'s own list (none: nothing), under the cluster-wide bound, and workloads that parse', async (t) => {
  const { admissionPolicy, imagePrefixes } = await import('../../controller/offload/admission.ts');
  const d = dfd({ overrides: [{ cluster: 'b', component: 'db', image: 'registry.b.example/db:1' }] });
  const job = jobOf(d, { origin: 'a', app: 'apps.shop.1', components: ['api', 'db'] });
  const [api, db] = job.components;
  if (api === undefined || db === undefined) throw new Error('no components');
  const forA = (images: string[]) => (origin: string) => (origin === 'a' ? { level: 'restricted' as const, images } : undefined);
  const policy = admissionPolicy('b', [], forA(['registry.b.example/']));
  t.is(policy('a', api), 'b (Pod Security restricted) refuses api: spec.template.spec.containers[0].image (example.com/api:1 is not under registry.b.example/)');
  t.is(policy('a', db), undefined, 'the override for b names an allowed image');
  t.regex(admissionPolicy('b', [], forA([]))('a', api) ?? '', /b runs no image for this neighbour \(its Federation lists none in spec.hosting.allowedImages\)/, 'an empty list runs nothing');
  t.is(admissionPolicy('b', [], forA([]))('c', api), 'b has no Federation for c and runs nothing for it');
  const bounded = admissionPolicy('b', imagePrefixes(' registry.b.example/ ,'), forA(['example.com/', 'registry.b.example/']));
  t.regex(bounded('a', api) ?? '', /example.com\/api:1 is not under registry.b.example\/ \(b's limit for every neighbour\)/, 'the cluster-wide setting bounds every list');
  t.is(bounded('a', db), undefined);
  t.regex(policy('a', { ...api, workload: { template: 'nonsense' } }) ?? '', /the workload of api from a/);
});

test('a Federation says Connected while its neighbour\'s adverts arrive, written only on change', async (t) => {
  const { neighbourCondition } = await import('../../controller/offload/federation.ts');
  const federation = { apiVersion: 'shifu.edgenesis.io/v1alpha1' as const, kind: 'Federation', metadata: { name: 'b', generation: 2 }, spec: { clusterId: 'b', brokerUrl: 'mqtt://b:1883', credentialsSecretRef: { name: 'fed-b', namespace: 'edgeshifu-system' } } };
  const now = new Date(0);
  const up = neighbourCondition(federation, true, now);
  t.like(up, { type: 'Connected', status: 'True', reason: 'AdvertsHeard', observedGeneration: 2 });
  if (up === undefined) throw new Error('no condition');
  t.is(neighbourCondition({ ...federation, status: { conditions: [up] } }, true, now), undefined, 'unchanged: nothing to write');
  const down = neighbourCondition({ ...federation, status: { conditions: [up] } }, false, now);
  t.like(down, { status: 'False', reason: 'NoAdverts' });
  t.regex(down?.message ?? '', /edgeshifu-system\/fed-b/, 'says which Secret to check');
});

test('a component\'s Service name is not taken from another deployment, nor from a Service edgeshifu did not make', (t) => {
  const shop = dfd();
  const ours = { 'app.kubernetes.io/managed-by': 'edgeshifu-controller', 'drone.edgeshifu.io/deployment': 'shop' };
  t.is(serviceClash(shop, 'db', undefined), undefined, 'free');
  t.is(serviceClash(shop, 'db', { labels: ours }), undefined, 'already ours');
  const other = serviceClash(shop, 'db', { labels: { ...ours, 'drone.edgeshifu.io/deployment': 'shop-2' } });
  t.regex(other ?? '', /Service apps\/db already exists and belongs to DroneFederatedDeployment shop-2/);
  t.regex(other ?? '', /rename the component, or create this DroneFederatedDeployment in another namespace/);
  t.regex(serviceClash(shop, 'db', { labels: { app: 'db' } }) ?? '', /was not made by edgeshifu/);
  t.regex(serviceClash(shop, 'db', {}) ?? '', /was not made by edgeshifu/, 'no labels at all');
});

/** The value with every object's keys in reverse order, as an API server may hand it back. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
}

test('a lease renewal that says nothing new asks for no write, whatever order the stored spec keeps its keys in', (t) => {
  const d = dfd();
  const status = applyDecision(startAuction(d, {}), { type: 'placed', app: 'apps.shop.1', origin: 'a', placement: { api: 'b', db: 'b' } }, 'a');
  const lease = leasesFor(d, status, 'a', 30).find((l) => l.component === 'db');
  if (lease === undefined) throw new Error('no lease for db');
  const msg = { ...lease, v: 1 as const, id: 'm1', sender: 'a', timestamp: 1, hops: 0 };
  const stored = { origin: 'a', app: lease.app, component: 'db', requestId: 'r', resources: { cpu: '500m', memory: '512Mi' }, workload: reordered(lease.workload) as Record<string, unknown>, revision: lease.revision, launch: lease.launch, dependencies: {}, leaseSeconds: 30 };
  t.is(leasedSpec(msg, stored), undefined, 'a renewal is no change');
  t.is(leasedSpec(msg, { ...stored, dependencies: undefined }), undefined, 'absent dependencies are none');
  t.deepEqual(leasedSpec({ ...msg, launch: !lease.launch }, stored)?.launch, !lease.launch, 'go is a change');
  t.truthy(leasedSpec({ ...msg, leaseSeconds: 60 }, stored), 'a longer lease is a change');
  t.truthy(leasedSpec(msg, { ...stored, workload: { ...stored.workload, template: {} } }), 'another workload is a change');
});

test('a status read back with its keys in another order is not a change, so it is not written again', (t) => {
  const d = dfd();
  const status = applyDecision(startAuction(d, {}), { type: 'placed', app: 'apps.shop.1', origin: 'a', placement: { api: 'b', db: 'b' } }, 'a');
  t.false(statusChanged(reordered(status) as typeof status, status));
  t.true(statusChanged(status, { ...status, phase: 'RUNNING' }));
});

test('the Ready condition: RefusedByHost with each host\'s reason when hosts refused a FAILED deployment, else the phase\'s own', async (t) => {
  const { readyCondition, capped } = await import('../../controller/offload/origin-plan.ts');
  const refusals = [{ host: 'b', component: 'db', reason: 'b (Pod Security restricted) refuses db: spec.template.spec.hostNetwork (host namespaces are not allowed)' }, { host: 'c', component: 'db', reason: 'c has no Federation for a and runs nothing for it' }];
  t.deepEqual(readyCondition({ phase: 'FAILED', reason: 'every cluster called refused db' }, refusals), {
    type: 'Ready', status: 'False', reason: 'RefusedByHost',
    message: 'b refused db: b (Pod Security restricted) refuses db: spec.template.spec.hostNetwork (host namespaces are not allowed)\nc refused db: c has no Federation for a and runs nothing for it',
  });
  t.like(readyCondition({ phase: 'FAILED', reason: 'no cluster has room' }, []), { status: 'False', reason: 'Failed', message: 'no cluster has room' });
  t.like(readyCondition({ phase: 'RUNNING', reason: 'every component runs' }, refusals), { status: 'True', reason: 'Running' });
  t.like(readyCondition({ phase: 'PENDING' }, []), { status: 'False', reason: 'Starting' });
  t.is(capped('x'.repeat(2000)).length, 1024);
});
