// The pure parts of Services and logs of carried pods: the provider's NodePort Service of a
// carried pod, the consumer's EndpointSlice per Service and pod (ports mapped by targetPort,
// what cannot be mapped said), the refusals, and the log query's options and bounds.
import test from 'ava';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { carriedEndpoint, declaredPorts, exposureName, exposureService, openPorts, selects, serviceRefusal } from '../../controller/rear/peering/carried-service.ts';
import { logQuery } from '../../controller/rear/peering/log-relay.ts';
import { logOptionsOf, LOG_ROUTE } from '../../controller/rear/peering/log-route.ts';
import { providerPod } from '../../controller/rear/peering/pod-carry.ts';
import { MAX_LOG_BYTES } from '../../controller/rear/messages/pod-log-request.ts';

const containers = [
  { name: 'web', image: 'i', ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }, { containerPort: 8080 }] },
  { name: 'side', image: 'i', ports: [{ name: 'sctp', containerPort: 9, protocol: 'SCTP' }] },
];

function consumerPod(ready = true): V1Pod {
  return {
    metadata: { name: 'web-1', namespace: 'apps', uid: 'uid-1', labels: { app: 'web' } },
    spec: { containers },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

const svc = (spec: V1Service['spec']): V1Service => ({ metadata: { name: 'web', namespace: 'apps', uid: 'svc-uid' }, spec });
const reach = { address: '192.0.2.7', ports: [{ name: 'p-8080-tcp', port: 8080, at: 30080, protocol: 'TCP' as const }, { name: 'p-53-udp', port: 53, at: 30053, protocol: 'UDP' as const }] };

test('the provider exposes a carried pod\'s declared TCP and UDP ports on a NodePort Service owned by the pod', (t) => {
  const made = providerPod({ consumer: 'cons', contractId: 'c-1', namespace: 'rear-cons', pod: { namespace: 'apps', name: 'web-1', uid: 'uid-1' }, spec: { containers }, level: 'restricted' });
  const pod: V1Pod = structuredClone(made);
  if (pod.metadata !== undefined) pod.metadata.uid = 'prov-uid';
  t.deepEqual(declaredPorts(pod).map((p) => `${String(p.port)}/${p.protocol}`), ['8080/TCP', '53/UDP', '9/SCTP'], 'each port/protocol once');
  const service = exposureService(pod);
  t.is(service?.metadata?.name, exposureName(pod));
  t.regex(service?.metadata?.name ?? '', /^carried-[0-9a-f]{16}$/);
  t.like(service?.metadata?.ownerReferences?.[0], { kind: 'Pod', uid: 'prov-uid' });
  t.is(service?.spec?.type, 'NodePort');
  t.deepEqual(service?.spec?.selector, { 'rear.edgeshifu.io/consumer': 'cons', 'rear.edgeshifu.io/consumer-uid': 'uid-1' });
  t.deepEqual(service?.spec?.ports?.map((p) => p.name), ['p-8080-tcp', 'p-53-udp'], 'SCTP is not exposed (a NodePort reached as DRONE reaches one is TCP or UDP)');
  t.is(exposureService({ metadata: pod.metadata, spec: { containers: [{ name: 'c', image: 'i' }] } }), undefined, 'no declared port: nothing to expose');
  t.is(exposureService(made), undefined, 'not before the API server gave the pod its uid (the owner reference)');
  t.deepEqual(openPorts([pod, consumerPod()]), [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 8080 }], 'the network policy opens the declared TCP and UDP ports, once each');
});

test('the consumer\'s slice maps each Service port through its targetPort to the NodePort, and says what it cannot map', (t) => {
  const service = svc({ selector: { app: 'web' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }, { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' }, { name: 'admin', port: 9000 }] });
  const made = carriedEndpoint(service, consumerPod(), reach);
  t.deepEqual(made.slice?.ports, [{ name: 'web', port: 30080, protocol: 'TCP' }, { name: 'dns', port: 30053, protocol: 'UDP' }]);
  t.like(made.slice?.endpoints?.[0], { addresses: ['192.0.2.7'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'web-1', uid: 'uid-1' } });
  t.is(made.slice?.addressType, 'IPv4');
  t.like(made.slice?.metadata?.labels, { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'rear.edgeshifu.io' });
  t.like(made.slice?.metadata?.ownerReferences?.[0], { kind: 'Service', uid: 'svc-uid' });
  t.deepEqual(made.problems, ['port admin targets 9000/TCP, which carried pod apps/web-1 does not declare in its containers\' ports (TCP or UDP): the provider exposes only declared ports']);
  t.false(carriedEndpoint(service, consumerPod(false), reach).slice?.endpoints?.[0]?.conditions?.ready, 'a pod not Ready is not a ready endpoint');
  t.is(carriedEndpoint(service, consumerPod(), { ...reach, address: '2001:db8::7' }).slice?.addressType, 'IPv6');
  const named = carriedEndpoint(service, consumerPod(), { ...reach, address: 'edge.example' });
  t.is(named.slice, undefined);
  t.regex(named.problems[0] ?? '', /edge\.example, which is not an IP address/);
  t.is(carriedEndpoint(svc({ selector: { app: 'web' }, ports: [{ port: 9000 }] }), consumerPod(), reach).slice, undefined, 'no port maps: no slice');
});

test('which Services select a carried pod, and which cannot reach one at all', (t) => {
  t.true(selects(svc({ selector: { app: 'web' } }), consumerPod()));
  t.false(selects(svc({ selector: { app: 'db' } }), consumerPod()));
  t.false(selects(svc({ ports: [{ port: 80 }] }), consumerPod()), 'no selector: its endpoints are someone else\'s');
  t.false(selects(svc({ type: 'ExternalName', externalName: 'x', selector: { app: 'web' } }), consumerPod()));
  t.false(selects({ metadata: { name: 'web', namespace: 'other' }, spec: { selector: { app: 'web' } } }, consumerPod()), 'another namespace');
  t.regex(serviceRefusal(svc({ clusterIP: 'None', selector: { app: 'web' } })) ?? '', /headless Service/);
  t.is(serviceRefusal(svc({ selector: { app: 'web' } })), undefined);
});

test('log options as kubectl sends them, bounded; bad values refused with what to fix', (t) => {
  const options = logOptionsOf(new URLSearchParams('container=web&tailLines=10&sinceSeconds=60&timestamps=true&limitBytes=999999999'));
  t.deepEqual(options, { container: 'web', tailLines: 10, limitBytes: 999999999, sinceSeconds: 60, timestamps: true });
  t.deepEqual(logQuery(options), { container: 'web', tailLines: 10, sinceSeconds: 60, timestamps: 'true', limitBytes: MAX_LOG_BYTES });
  t.deepEqual(logQuery({}), { limitBytes: MAX_LOG_BYTES }, 'never more than an answer carries');
  t.deepEqual(logQuery({ sinceTime: '2026-01-01T00:00:01Z' }), { sinceTime: '2026-01-01T00:00:01Z', limitBytes: MAX_LOG_BYTES }, 'a followed log\'s next read');
  t.throws(() => logOptionsOf(new URLSearchParams('tailLines=-1')), { message: /tailLines must be a whole number/ });
  t.throws(() => logOptionsOf(new URLSearchParams('timestamps=yes')), { message: /timestamps must be true or false/ });
  t.throws(() => logOptionsOf(new URLSearchParams('container=Web_1')), { message: /not a container name/ });
  t.deepEqual([...LOG_ROUTE.exec('/rear/v1/namespaces/apps/pods/web-1.x/log') ?? []].slice(1), ['apps', 'web-1.x']);
  t.is(LOG_ROUTE.exec('/rear/v1/namespaces/apps/pods/web/exec'), null);
});
