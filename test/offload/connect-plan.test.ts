// The pure core of "Launch and connect", without a cluster: every port of a component
// named and reported, the Services and EndpointSlices that reach a component elsewhere (the
// origin's for a remote component, the host's for a dependency in the origin), which local
// components must be reachable from a neighbour, and what the messages carry, older ones included.
import test from 'ava';
import type { V1Service } from '@kubernetes/client-node';
import { isEdgeshifuError } from '../../shared/errors.ts';
import type { ReachablePort } from '../../shared/crds/drone.ts';
import { containerPorts, namedPorts, validateDeployment, workloadOf, type DroneFederatedDeployment } from '../../controller/offload/workload.ts';
import { applyDecision, leasesFor, localObservation, neededRemotely, observe, readiness, startAuction } from '../../controller/offload/origin-plan.ts';
import { exposedAt, hostVerdict } from '../../controller/offload/host-plan.ts';
import { connectObjects, dependencyClash, dependencyObjects, localObjects, reachablePorts, reachOf, remoteObjects, sourceOf, type HostRequest } from '../../controller/offload/objects.ts';
import { droneCodec } from '../../controller/drone/messages/index.ts';
import { twoComponentApp } from './support.ts';

function dfd(): DroneFederatedDeployment {
  const body = twoComponentApp('shop') as unknown as DroneFederatedDeployment;
  return { ...body, metadata: { name: 'shop', namespace: 'apps', uid: 'u1', generation: 1 }, spec: structuredClone(body.spec) };
}

const TWO: ReachablePort[] = [{ name: 'http', port: 8080, at: 30001, protocol: 'TCP' }, { name: 'metrics', port: 9090, at: 30002, protocol: 'TCP' }];

test('every port gets a name: as given, else its protocol and number; the containers\' ports serve when none are listed', (t) => {
  t.deepEqual(namedPorts([{ port: 8080 }, { name: 'dns', port: 53, protocol: 'UDP' }, { port: 53, protocol: 'UDP' }]).map((p) => [p.name, p.protocol]), [['tcp-8080', 'TCP'], ['dns', 'UDP'], ['udp-53', 'UDP']]);
  const template = { spec: { template: { spec: { containers: [
    { name: 'web', image: 'i', ports: [{ name: 'http', containerPort: 8080 }, { name: '9metrics', containerPort: 9090 }, { containerPort: 5000, protocol: 'SCTP' }] },
    { name: 'side', image: 'i', ports: [{ containerPort: 53, protocol: 'UDP' }, { containerPort: 'x' }] },
  ] } } } };
  t.deepEqual(containerPorts(template), [{ name: 'http', port: 8080, protocol: 'TCP' }, { port: 9090, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }], 'a name a Service port cannot take is left to the default; SCTP and bad numbers are not offered');
  const d = dfd();
  const db = d.spec.components[1];
  if (db === undefined) throw new Error('no db');
  t.deepEqual(workloadOf(d.spec, db).ports, [{ name: 'http', port: 5432, targetPort: 5432 }], 'listed ports win over the containers\'');
  delete db.ports;
  db.template.spec.template.spec = template.spec.template.spec;
  t.is(workloadOf(d.spec, db).ports.length, 3);
});

test('ports with the same name or number are refused, naming the component and the fix', (t) => {
  const d = dfd();
  const api = d.spec.components[0];
  if (api === undefined) throw new Error('no api');
  api.ports = [{ name: 'http', port: 8080 }, { name: 'http', port: 9090 }];
  const e = t.throws(() => { validateDeployment(d); });
  t.true(isEdgeshifuError(e, 'invalid'));
  t.regex(e.message, /component api: port name "http" is used twice; give each port its own name/);
  api.ports = [{ name: 'tcp-8080', port: 9090 }, { port: 8080 }];
  t.regex(t.throws(() => { validateDeployment(d); }).message, /port name "tcp-8080" is used twice/, 'a default name counts too');
  api.ports = [{ name: 'a', port: 8080 }, { name: 'b', port: 8080 }];
  t.regex(t.throws(() => { validateDeployment(d); }).message, /port 8080\/TCP is listed twice/);
  api.ports = [{ name: 'a', port: 53 }, { name: 'b', port: 53, protocol: 'UDP' }];
  t.notThrows(() => { validateDeployment(d); }, 'one number over TCP and UDP is two ports');
});

test('a NodePort Service is reachable once every port has its node port; the endpoint is the first', (t) => {
  const service = (nodePorts: Array<number | undefined>): V1Service => ({ spec: { ports: [{ name: 'http', port: 8080, nodePort: nodePorts[0] }, { name: 'metrics', port: 9090, protocol: 'TCP', nodePort: nodePorts[1] }] } });
  t.deepEqual(reachablePorts(service([30001, 30002])), TWO);
  t.is(reachablePorts(service([30001, undefined])), undefined, 'one port still waits');
  t.is(reachablePorts({ spec: { ports: [] } }), undefined);
  t.deepEqual(exposedAt(service([30001, 30002]), '192.0.2.2'), { endpoint: '192.0.2.2:30001', ports: TWO });
  t.is(exposedAt(service([30001, 30002]), undefined), undefined, 'no address to give');
});

test('a host reports every port of what it runs, and SCHEDULED until each has a node port', (t) => {
  const request = { apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'HostRequest', metadata: { name: 'web-1', namespace: 'drone-a', creationTimestamp: new Date(1_000).toISOString() as unknown as Date }, spec: { origin: 'a', app: 'apps.web.1', component: 'web', requestId: 'r', resources: { cpu: '1', memory: '1Gi' }, leaseSeconds: 60, launch: true } } as HostRequest;
  const deployment = { metadata: { generation: 1 }, spec: { replicas: 1, selector: {}, template: {} }, status: { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 1 } };
  const half: V1Service = { spec: { ports: [{ name: 'http', port: 8080, nodePort: 30001 }, { name: 'metrics', port: 9090 }] } };
  t.like(hostVerdict({ request, deployment, service: half, address: '192.0.2.2', now: 2_000 }), { expired: false, phase: 'SCHEDULED', message: 'waiting for the Service\'s node port' });
  const both: V1Service = { spec: { ports: [{ name: 'http', port: 8080, protocol: 'TCP', nodePort: 30001 }, { name: 'metrics', port: 9090, protocol: 'TCP', nodePort: 30002 }] } };
  t.deepEqual(hostVerdict({ request, deployment, service: both, address: '192.0.2.2', now: 2_000 }), { expired: false, phase: 'LAUNCHED', endpoint: '192.0.2.2:30001', ports: TWO, message: 'running' });
});

test('the origin reaches a remote component on every port by name; a report with one port (an older host) maps the first declared', (t) => {
  const d = dfd();
  const objects = remoteObjects(d, { component: 'web', reach: reachOf('192.0.2.2:30001', TWO, []) });
  t.is(objects.service.spec?.selector, undefined);
  t.deepEqual(objects.service.spec?.ports, [{ name: 'http', port: 8080, targetPort: 30001, protocol: 'TCP' }, { name: 'metrics', port: 9090, targetPort: 30002, protocol: 'TCP' }]);
  t.deepEqual(objects.slice?.ports, [{ name: 'http', port: 30001, protocol: 'TCP' }, { name: 'metrics', port: 30002, protocol: 'TCP' }]);
  t.deepEqual(objects.slice?.endpoints, [{ addresses: ['192.0.2.2'], conditions: { ready: true } }]);
  t.is(objects.service.metadata?.ownerReferences?.[0]?.controller, true, 'the deployment owns it');
  t.deepEqual(reachOf('192.0.2.2:30007', undefined, [{ name: 'pg', port: 5432 }, { name: 'metrics', port: 9187 }]), { address: '192.0.2.2', ports: [{ name: 'pg', port: 5432, at: 30007, protocol: 'TCP' }] });
  t.deepEqual(reachOf('192.0.2.2:30007', undefined, []).ports, [{ name: 'tcp-30007', port: 30007, at: 30007, protocol: 'TCP' }], 'no port declared: callers use the node port');
  const v6 = connectObjects({ namespace: 'n', name: 'x', labels: {}, owners: [] }, { address: '2001:db8::1', ports: TWO });
  t.is(v6.slice?.addressType, 'IPv6');
  const byName = connectObjects({ namespace: 'n', name: 'x', labels: {}, owners: [] }, { address: 'edge-2.example', ports: TWO });
  t.is(byName.service.spec?.type, 'ExternalName');
  t.is(byName.slice, undefined);
});

test('a local component is exposed on node ports only when a component placed elsewhere depends on it, and LAUNCHED once reachable', (t) => {
  const d = dfd();
  const placed = (api: string, db: string): ReturnType<typeof startAuction> => applyDecision(startAuction(d, {}), { type: 'placed', app: 'apps.shop.1', origin: 'a', placement: { api, db } }, 'a');
  t.true(neededRemotely(d, placed('b', 'a'), 'db', 'a'), 'api on b needs db from a');
  t.false(neededRemotely(d, placed('a', 'a'), 'db', 'a'), 'all here');
  t.false(neededRemotely(d, placed('b', 'a'), 'api', 'a'), 'nothing depends on api');
  t.false(neededRemotely(d, startAuction(d, {}), 'db', 'a'), 'api not placed yet');
  const workload = workloadOf(d.spec, d.spec.components[1] ?? (() => { throw new Error('no db'); })());
  t.is(localObjects(d, { component: 'db', workload, cluster: 'a', env: [], exposed: true }).service.spec?.type, 'NodePort');
  t.is(localObjects(d, { component: 'db', workload, cluster: 'a', env: [] }).service.spec?.type, undefined);

  t.deepEqual(localObservation({ component: 'db', namespace: 'apps', running: true, firstPort: 5432 }), { phase: 'LAUNCHED', endpoint: 'db.apps.svc:5432', message: 'running here' });
  const at = { endpoint: '192.0.2.1:30100', ports: [{ name: 'http', port: 5432, at: 30100 }] };
  t.deepEqual(localObservation({ component: 'db', namespace: 'apps', running: true, firstPort: 5432, exposed: at }), { phase: 'LAUNCHED', ...at, message: 'running here' });
  t.like(localObservation({ component: 'db', namespace: 'apps', running: true, exposed: 'unreachable' }), { phase: 'SCHEDULED' });
  t.like(localObservation({ component: 'db', namespace: 'apps', running: false, exposed: at }), { phase: 'SCHEDULED', endpoint: '192.0.2.1:30100' });
});

test('the lease tells the host every port of each dependency, and says nothing new when there is none', (t) => {
  const d = dfd();
  let status = applyDecision(startAuction(d, {}), { type: 'placed', app: 'apps.shop.1', origin: 'a', placement: { api: 'b', db: 'a' } }, 'a');
  const dbPorts = [{ name: 'pg', port: 5432, at: 30100, protocol: 'TCP' as const }, { name: 'metrics', port: 9187, at: 30101, protocol: 'TCP' as const }];
  status = observe(status, new Map([['db', { phase: 'LAUNCHED' as const, endpoint: '192.0.2.1:30100', ports: dbPorts }]]));
  t.deepEqual(status.components?.find((c) => c.name === 'db')?.ports, dbPorts, 'kept in the status');
  t.deepEqual(readiness(d, status, 'api'), { launch: true, dependencies: { db: '192.0.2.1:30100' }, dependencyPorts: { db: dbPorts } });
  const [lease] = leasesFor(d, status, 'a', 30);
  t.deepEqual(lease?.dependencyPorts, { db: dbPorts });
  status = observe(status, new Map([['db', { phase: 'LAUNCHED' as const, endpoint: 'db.apps.svc:5432' }]]));
  t.is(status.components?.find((c) => c.name === 'db')?.ports, undefined, 'ports no longer seen are dropped');
  t.false('dependencyPorts' in (leasesFor(d, status, 'a', 30)[0] ?? {}), 'an older host would refuse the field: left out when empty');
});

function hosted(name: string, uid: string, spec: Partial<HostRequest['spec']>): HostRequest {
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'HostRequest', metadata: { name, namespace: 'drone-a', uid },
    spec: { origin: 'a', app: 'apps.shop.1', component: name, requestId: 'r', resources: { cpu: '1', memory: '1Gi' }, leaseSeconds: 60, ...spec },
  };
}

test('a host makes a Service named as each dependency, owned by every HostRequest of that deployment that needs it', (t) => {
  const ports = [{ name: 'pg', port: 5432, at: 30100, protocol: 'TCP' as const }];
  const api = hosted('api-1', 'u-api', { dependencies: { db: '192.0.2.1:30100' }, dependencyPorts: { db: ports } });
  const worker = hosted('worker-1', 'u-worker', { app: 'apps.shop.2', dependencies: { db: '192.0.2.1:30100' }, dependencyPorts: { db: ports } });
  const stranger = hosted('x-1', 'u-x', { app: 'other.shop.1', dependencies: { db: '192.0.2.9:30100' }, dependencyPorts: { db: ports } });
  const [objects, ...rest] = dependencyObjects(api, [api, worker, stranger, hosted('cache-1', 'u-c', {})]);
  t.is(rest.length, 0);
  t.is(objects?.service.metadata?.name, 'db');
  t.is(objects?.service.metadata?.namespace, 'drone-a');
  t.deepEqual(objects?.service.spec?.ports, [{ name: 'pg', port: 5432, targetPort: 30100, protocol: 'TCP' }]);
  t.deepEqual(objects?.slice?.endpoints?.[0]?.addresses, ['192.0.2.1']);
  t.deepEqual(objects?.service.metadata?.ownerReferences?.map((o) => [o.name, o.controller]), [['api-1', false], ['worker-1', false]], 'a later auction of the same deployment shares it; another deployment does not');
  t.is(objects?.service.metadata?.labels?.['drone.edgeshifu.io/source'], sourceOf('a', 'apps.shop.7').label, 'the source is the deployment, whatever the attempt');
  t.deepEqual(dependencyObjects(hosted('api-1', 'u', { dependencies: { db: '192.0.2.1:30100' } }), []), [], 'an older origin sends no ports: no Service');

  t.is(dependencyClash(api, 'db', undefined), undefined);
  t.is(dependencyClash(api, 'db', objects?.service.metadata), undefined, 'its own');
  t.is(dependencyClash(api, 'db', dependencyObjects(stranger, [])[0]?.service.metadata), 'Service drone-a/db already exists and serves a/other.shop; api-1 reaches its dependency db under that name: rename the component in one of the deployments');
  t.regex(dependencyClash(api, 'db', { labels: { app: 'db' } }) ?? '', /was not made for a dependency by edgeshifu/);
});

test('messages: a host-status with every port, and one without (an older host) are both accepted; a lease with dependency ports too', (t) => {
  const codec = droneCodec();
  const envelope = { v: 1, id: 'abcdefgh1', sender: 'b', timestamp: 1, hops: 0 };
  const status = { ...envelope, kind: 'host-status', to: 'a', app: 'apps.web.1', component: 'web', phase: 'LAUNCHED', endpoint: '192.0.2.2:30001' };
  t.true(codec.check(status).ok, 'one port: the endpoint alone');
  t.true(codec.check({ ...status, ports: TWO }).ok);
  t.false(codec.check({ ...status, ports: [{ name: 'Bad_Name', port: 1, at: 2 }] }).ok, 'port names are DNS labels');
  t.false(codec.check({ ...status, ports: [] }).ok);
  const lease = { ...envelope, id: 'abcdefgh2', sender: 'a', kind: 'lease', to: 'b', app: 'apps.shop.1', component: 'api', revision: 'r1', workload: {}, launch: true, dependencies: { db: '192.0.2.1:30100' }, leaseSeconds: 60 };
  t.true(codec.check(lease).ok, 'an older origin\'s lease');
  t.true(codec.check({ ...lease, dependencyPorts: { db: TWO } }).ok);
  t.false(codec.check({ ...lease, dependencyPorts: { db: [{ name: 'x', port: 70_000, at: 1 }] } }).ok);
});
