// What a neighbour's workload may ask for on a host (pure): the Pod Security Standards' fields at
// baseline and restricted, the schema of a hosted pod spec, the hardening a host adds, and the
// objects that fence the neighbour's namespace, each refusal naming its field by path.
import test from 'ava';
import { hardenedPodSpec, podSecurityViolations, describeViolations, type PodSecurityLevel } from '../../controller/offload/pod-security.ts';
import { workloadViolations } from '../../controller/offload/admission.ts';
import { hostedNamespaceObjects, podSecurityLabels } from '../../controller/offload/hosted-namespace.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import type { Workload } from '../../controller/offload/workload.ts';

const plain = (): Record<string, unknown> => ({ containers: [{ name: 'app', image: 'example.com/app:1' }] });
const withContainer = (extra: Record<string, unknown>): Record<string, unknown> => ({ containers: [{ name: 'app', image: 'example.com/app:1', ...extra }] });

interface Row {
  readonly title: string;
  readonly spec: Record<string, unknown>;
  /** Paths refused at baseline and at restricted (restricted refuses everything baseline does). */
  readonly baseline: readonly string[];
  readonly restricted: readonly string[];
}

const ROWS: readonly Row[] = [
  { title: 'a plain pod', spec: plain(), baseline: [], restricted: [] },
  { title: 'privileged', spec: withContainer({ securityContext: { privileged: true } }), baseline: ['spec.containers[0].securityContext.privileged'], restricted: ['spec.containers[0].securityContext.privileged'] },
  { title: 'privilege escalation', spec: withContainer({ securityContext: { allowPrivilegeEscalation: true } }), baseline: [], restricted: ['spec.containers[0].securityContext.allowPrivilegeEscalation'] },
  {
    title: 'host namespaces', spec: { ...plain(), hostNetwork: true, hostPID: true, hostIPC: true },
    baseline: ['spec.hostNetwork', 'spec.hostPID', 'spec.hostIPC'], restricted: ['spec.hostNetwork', 'spec.hostPID', 'spec.hostIPC'],
  },
  { title: 'host namespaces said false', spec: { ...plain(), hostNetwork: false, hostPID: false }, baseline: [], restricted: [] },
  { title: 'a hostPath volume', spec: { ...plain(), volumes: [{ name: 'root', hostPath: { path: '/' } }] }, baseline: ['spec.volumes[0].hostPath'], restricted: ['spec.volumes[0].hostPath'] },
  { title: 'a volume restricted does not list', spec: { ...plain(), volumes: [{ name: 'n', nfs: { server: 'x', path: '/' } }] }, baseline: [], restricted: ['spec.volumes[0].nfs'] },
  { title: 'an emptyDir', spec: { ...plain(), volumes: [{ name: 'tmp', emptyDir: {} }] }, baseline: [], restricted: [] },
  { title: 'a host port', spec: withContainer({ ports: [{ containerPort: 80, hostPort: 80 }] }), baseline: ['spec.containers[0].ports[0].hostPort'], restricted: ['spec.containers[0].ports[0].hostPort'] },
  { title: 'SYS_ADMIN added', spec: withContainer({ securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }), baseline: ['spec.containers[0].securityContext.capabilities.add'], restricted: ['spec.containers[0].securityContext.capabilities.add'] },
  { title: 'CHOWN added (baseline allows it)', spec: withContainer({ securityContext: { capabilities: { add: ['CHOWN'] } } }), baseline: [], restricted: ['spec.containers[0].securityContext.capabilities.add'] },
  { title: 'NET_BIND_SERVICE added', spec: withContainer({ securityContext: { capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] } } }), baseline: [], restricted: [] },
  { title: 'capabilities dropped but not ALL', spec: withContainer({ securityContext: { capabilities: { drop: ['NET_RAW'] } } }), baseline: [], restricted: ['spec.containers[0].securityContext.capabilities.drop'] },
  { title: 'root by runAsNonRoot false', spec: { ...plain(), securityContext: { runAsNonRoot: false } }, baseline: [], restricted: ['spec.securityContext.runAsNonRoot'] },
  { title: 'root by runAsUser 0 in a container', spec: withContainer({ securityContext: { runAsUser: 0 } }), baseline: [], restricted: ['spec.containers[0].securityContext.runAsUser'] },
  { title: 'seccomp Unconfined', spec: { ...plain(), securityContext: { seccompProfile: { type: 'Unconfined' } } }, baseline: ['spec.securityContext.seccompProfile.type'], restricted: ['spec.securityContext.seccompProfile.type'] },
  { title: 'an init container is checked too', spec: { ...plain(), initContainers: [{ name: 'init', image: 'example.com/i:1', securityContext: { privileged: true } }] }, baseline: ['spec.initContainers[0].securityContext.privileged'], restricted: ['spec.initContainers[0].securityContext.privileged'] },
  { title: 'an unsafe sysctl', spec: { ...plain(), securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } }, baseline: ['spec.securityContext.sysctls[0].name'], restricted: ['spec.securityContext.sysctls[0].name'] },
  { title: 'procMount Unmasked', spec: withContainer({ securityContext: { procMount: 'Unmasked' } }), baseline: ['spec.containers[0].securityContext.procMount'], restricted: ['spec.containers[0].securityContext.procMount'] },
  { title: 'a HostProcess container', spec: withContainer({ securityContext: { windowsOptions: { hostProcess: true } } }), baseline: ['spec.containers[0].securityContext.windowsOptions.hostProcess'], restricted: ['spec.containers[0].securityContext.windowsOptions.hostProcess'] },
  { title: 'a ServiceAccount token asked for', spec: { ...plain(), automountServiceAccountToken: true }, baseline: ['spec.automountServiceAccountToken'], restricted: ['spec.automountServiceAccountToken'] },
  { title: 'a ServiceAccount named', spec: { ...plain(), serviceAccountName: 'admin' }, baseline: ['spec.serviceAccountName'], restricted: ['spec.serviceAccountName'] },
];

for (const row of ROWS) {
  for (const level of ['baseline', 'restricted'] as const satisfies readonly PodSecurityLevel[]) {
    test(`${level}: ${row.title}`, (t) => {
      t.deepEqual(podSecurityViolations(row.spec, level).map((v) => v.path), [...row[level]]);
    });
  }
}

test('what the host runs: no token and no ServiceAccount at every level; restricted fills what the template left unsaid and passes its own check', (t) => {
  const asked = withContainer({ securityContext: { capabilities: { add: ['NET_BIND_SERVICE'] } } });
  const base = hardenedPodSpec({ ...asked, serviceAccountName: 'default' }, 'baseline');
  t.is(base.automountServiceAccountToken, false);
  t.is(base.serviceAccountName, undefined);
  t.is(base.securityContext, undefined, 'baseline adds no hardening');
  const restricted = hardenedPodSpec(asked, 'restricted');
  t.deepEqual(restricted.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  t.deepEqual((restricted.containers as Array<{ securityContext: unknown }>)[0]?.securityContext, { allowPrivilegeEscalation: false, capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] } });
  t.deepEqual(podSecurityViolations(restricted, 'restricted'), []);
  t.deepEqual(asked, withContainer({ securityContext: { capabilities: { add: ['NET_BIND_SERVICE'] } } }), 'the template itself is not changed');
});

const workload = (spec: Record<string, unknown>, annotations?: Record<string, string>): Workload => ({
  template: { spec: { replicas: 1, template: { ...(annotations === undefined ? {} : { metadata: { annotations } }), spec } } }, ports: [], overrides: [],
});
const POLICY = { cluster: 'b', policy: { level: 'restricted' as const, images: ['example.com/'] }, clusterImages: [] };

test('a hosted pod spec carries only known fields: the unknown and the forbidden are named by path, Pod Security\'s once with its own reason', (t) => {
  const spec = { ...withContainer({ lifecycle: { preStop: {} }, securityContext: { privileged: true } }), nodeName: 'control-plane', priorityClassName: 'system-node-critical', hostNetwork: true, volumes: [{ name: 'root', hostPath: { path: '/' } }] };
  const found = workloadViolations(workload(spec), POLICY);
  t.deepEqual(found.map((v) => v.path).sort(), [
    'spec.template.spec.containers[0].lifecycle', 'spec.template.spec.containers[0].securityContext.privileged', 'spec.template.spec.hostNetwork',
    'spec.template.spec.nodeName', 'spec.template.spec.priorityClassName', 'spec.template.spec.volumes[0].hostPath',
  ]);
  t.regex(describeViolations(found), /spec\.template\.spec\.nodeName \(is not a field a hosted Deployment may carry\)/);
  t.regex(describeViolations(found), /spec\.template\.spec\.hostNetwork \(host namespaces are not allowed\)/);
  t.deepEqual(workloadViolations(workload(withContainer({ ports: [{ containerPort: 8080 }], resources: { requests: { cpu: '100m' } }, env: [{ name: 'A', value: '1' }] })), POLICY), []);
  const token = { ...plain(), volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] };
  t.deepEqual(workloadViolations(workload(token), POLICY).map((v) => v.path), ['spec.template.spec.volumes[0].projected.sources[0].serviceAccountToken'], 'no token by a projected volume either');
  t.deepEqual(workloadViolations(workload(plain(), { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' }), POLICY).map((v) => v.path), ['spec.template.metadata.annotations["container.apparmor.security.beta.kubernetes.io/app"]']);
});

test('a long list of refusals is cut within a message\'s length, saying how many more', (t) => {
  const many = Array.from({ length: 80 }, (_, i) => ({ path: `spec.template.spec.containers[${String(i)}].securityContext.privileged`, why: 'privileged containers are not allowed' }));
  const text = describeViolations(many, 700);
  t.true(text.length <= 760);
  t.regex(text, /and \d+ more$/);
});

function request(name: string, ports: number[], dependencies: Record<string, string> = {}): HostRequest {
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'HostRequest', metadata: { name, namespace: 'drone-a' },
    spec: {
      origin: 'a', app: 'apps.shop.1', component: name, requestId: `r-${name}`, resources: { cpu: 0, memory: 0 }, launch: true, leaseSeconds: 60, dependencies,
      workload: { template: { spec: { template: { spec: plain() } } }, ports: ports.map((port) => ({ port, targetPort: port + 1 })), overrides: [] },
    },
  };
}

test('the neighbour\'s namespace: Pod Security labels, a quota and limits equal to its slices, a policy admitting only exposed ports and reaching only its dependencies', (t) => {
  const objects = hostedNamespaceObjects({
    origin: 'a', namespace: 'drone-a', level: 'baseline',
    requests: [
      { request: request('api', [8080], { db: '192.0.2.1:30432', cache: 'cache.example:30379' }), reserved: { cpu: 500, memory: 512, pods: 2 } },
      { request: request('web', [80, 8080]), reserved: { cpu: 250, memory: 128, pods: 1 } },
    ],
  });
  t.like(objects.namespace.metadata?.labels, { ...podSecurityLabels('baseline'), 'pod-security.kubernetes.io/enforce': 'baseline', 'drone.edgeshifu.io/hosted-for': 'a' });
  t.deepEqual(objects.quota.spec?.hard, { 'requests.cpu': '750m', 'requests.memory': '640Mi', pods: '3' });
  t.deepEqual(objects.limits.spec.limits, [{ type: 'Container', max: { cpu: '750m', memory: '640Mi' }, default: { cpu: '750m', memory: '640Mi' }, defaultRequest: { cpu: '0', memory: '0' } }]);
  t.deepEqual(objects.policy.spec?.ingress, [{ ports: [{ protocol: 'TCP', port: 81 }, { protocol: 'TCP', port: 8081 }] }]);
  const egress = objects.policy.spec?.egress ?? [];
  t.deepEqual(egress[0], { to: [{ podSelector: {} }] }, 'the namespace\'s own pods');
  t.deepEqual(egress[2], { to: [{ ipBlock: { cidr: '192.0.2.1/32' } }], ports: [{ protocol: 'TCP', port: 30432 }] }, 'a dependency at its address and node port');
  t.is(egress.length, 3, 'a dependency known by DNS name cannot be named in a policy');
  const empty = hostedNamespaceObjects({ origin: 'a', namespace: 'drone-a', level: 'restricted', requests: [] });
  t.deepEqual(empty.quota.spec?.hard, { 'requests.cpu': '0', 'requests.memory': '0', pods: '0' }, 'nothing held: nothing runs');
  t.deepEqual(empty.policy.spec?.ingress, []);
});
