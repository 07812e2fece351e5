// The hosting side of the trust boundary on two real control planes: a neighbour asking for root
// on the host (privileged, host namespaces, the host's / mounted) is refused before anything is
// made, and its user is told each field to fix; a compliant workload runs under the host's
// rules: Pod Security restricted enforced on its namespace, no ServiceAccount token, a quota,
// limits and a network policy equal to what was agreed, kept in step as it goes.
import test from 'ava';
import type { V1LimitRange, V1NetworkPolicy, V1ResourceQuota } from '@kubernetes/client-node';
import { NetworkingV1Api } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { APPS, createApp, listCustom, readApp, startFederation } from './support.ts';

function oneComponent(name: string, pod: Record<string, unknown>, container: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION}`, kind: 'DroneFederatedDeployment', metadata: { name, namespace: APPS },
    spec: {
      offload: true,
      components: [{
        name, ports: [{ name: 'http', port: 8080 }],
        template: { spec: { replicas: 1, template: { spec: { ...pod, containers: [{ name, image: `example.com/${name}:1`, resources: { requests: { cpu: '250m', memory: '128Mi' } }, ...container }] } } } },
      }],
    },
  };
}

const ROOT_ON_THE_HOST = {
  pod: { hostNetwork: true, hostPID: true, volumes: [{ name: 'host', hostPath: { path: '/' } }] },
  container: { securityContext: { privileged: true }, volumeMounts: [{ name: 'host', mountPath: '/host' }] },
};

test.serial('a neighbour\'s root-on-the-host workload is refused with every field named, nothing is made; a compliant one runs fenced by the host\'s rules', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '4', memory: '8Gi' }], { asServiceAccount: true });
  if (a === undefined || b === undefined) throw new Error('no federation');
  await waitFor('a to hear b\'s slice advert', () => (a.controller.controller.offloader?.federation.agent.providers().includes('b') === true ? true : undefined), { timeoutMs: 30_000 });

  await createApp(a.kube, oneComponent('root', ROOT_ON_THE_HOST.pod, ROOT_ON_THE_HOST.container));
  const failed = await waitFor('root to be FAILED with the host\'s reason', async () => {
    const app = await readApp(a.kube, 'root');
    const ready = app?.status?.conditions?.find((c) => c.type === 'Ready');
    return app?.status?.phase === 'FAILED' && ready?.reason === 'RefusedByHost' ? { app, ready } : undefined;
  }, { timeoutMs: 90_000 });
  for (const field of ['hostNetwork', 'hostPID', 'volumes[0].hostPath', 'containers[0].securityContext.privileged']) {
    t.true(failed.ready.message.includes(`spec.template.spec.${field}`), `the condition names ${field}: ${failed.ready.message}`);
  }
  t.regex(failed.ready.message, /^b refused root: b \(Pod Security restricted\) refuses root:/);
  t.is(failed.ready.status, 'False');
  t.deepEqual(await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a'), [], 'no HostRequest on b');
  t.deepEqual((await b.kube.apps.listNamespacedDeployment({ namespace: 'drone-a' })).items, [], 'nothing made in drone-a');
  t.deepEqual((await b.kube.core.listNamespacedPod({ namespace: 'drone-a' })).items, []);

  // a compliant one: the plain template a user writes runs, hardened by the host
  await createApp(a.kube, oneComponent('web', {}));
  const running = await waitFor('web to be RUNNING', async () => {
    const app = await readApp(a.kube, 'web');
    return app?.status?.phase === 'RUNNING' ? app : undefined;
  }, { timeoutMs: 120_000 });
  t.deepEqual(running.status?.components?.map((c) => [c.cluster, c.phase]), [['b', 'LAUNCHED']]);
  t.like(running.status?.conditions?.find((c) => c.type === 'Ready'), { status: 'True', reason: 'Running' });

  const namespace = await b.kube.core.readNamespace({ name: 'drone-a' });
  t.like(namespace.metadata?.labels, {
    'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest',
    'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'restricted', 'drone.edgeshifu.io/hosted-for': 'a',
  });
  const [deployment] = (await b.kube.apps.listNamespacedDeployment({ namespace: 'drone-a' })).items;
  const pod = deployment?.spec?.template.spec;
  t.is(pod?.automountServiceAccountToken, false, 'no ServiceAccount token');
  t.like(pod?.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  t.like(pod?.containers[0]?.securityContext, { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  // the pod itself went through Pod Security admission and the quota
  const [running0] = (await b.kube.core.listNamespacedPod({ namespace: 'drone-a' })).items;
  t.is(running0?.spec?.automountServiceAccountToken, false);
  t.false((running0?.spec?.volumes ?? []).some((v) => v.projected !== undefined), 'no token volume in the pod');

  const quota: V1ResourceQuota = await b.kube.core.readNamespacedResourceQuota({ namespace: 'drone-a', name: 'edgeshifu-hosted' });
  t.deepEqual(quota.spec?.hard, { 'requests.cpu': '250m', 'requests.memory': '128Mi', pods: '1' }, 'what the slice reserves for web');
  const limits: V1LimitRange = await b.kube.core.readNamespacedLimitRange({ namespace: 'drone-a', name: 'edgeshifu-hosted' });
  t.like(limits.spec?.limits[0], { type: 'Container', max: { cpu: '250m', memory: '128Mi' } });
  // this machine's test clusters enforce no NetworkPolicy (no network plugin): its content is what is asserted
  const networking = b.kube.kc.makeApiClient(NetworkingV1Api);
  // as plain JSON: the client's model classes do not compare equal to object literals
  const policy = JSON.parse(JSON.stringify(await networking.readNamespacedNetworkPolicy({ namespace: 'drone-a', name: 'edgeshifu-hosted' }))) as V1NetworkPolicy;
  t.deepEqual(policy.spec?.policyTypes, ['Ingress', 'Egress']);
  t.deepEqual(policy.spec?.ingress, [{ ports: [{ protocol: 'TCP', port: 8080 }] }], 'only the exposed port');
  t.deepEqual(policy.spec?.egress?.[0], { to: [{ podSelector: {} }] }, 'its own pods, DNS, and nothing of the host\'s namespaces');

  // what the namespace enforces, tried directly by the host's admin: root is refused, and so is more than the slice
  const tryPod = async (name: string, spec: Record<string, unknown>): Promise<string> => {
    try {
      await b.kube.core.createNamespacedPod({ namespace: 'drone-a', body: { metadata: { name }, spec: { containers: [{ name, image: 'example.com/x:1', ...spec }] } } });
      return 'created';
    } catch (err) {
      const body = (err as { body?: unknown }).body;
      return typeof body === 'string' ? (JSON.parse(body) as { message: string }).message : String(err);
    }
  };
  t.regex(await tryPod('root', { securityContext: { privileged: true } }), /violates PodSecurity "restricted:latest"/);
  const hardened = { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } };
  t.regex(await tryPod('more', { ...hardened, resources: { requests: { cpu: '100m' } } }), /exceeded quota: edgeshifu-hosted/);

  // a MOD that asks for the host's network later is refused where it runs: nothing of it is applied
  const before = deployment?.metadata?.generation;
  await a.kube.custom.patchNamespacedCustomObject({
    group: GROUP, version: VERSION, namespace: APPS, plural: 'dronefederateddeployments', name: 'web',
    body: [{ op: 'add', path: '/spec/components/0/template/spec/template/spec/hostNetwork', value: true }],
  });
  const refusedMod = await waitFor('b to fail the new revision', async () => {
    const [r] = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
    return r?.status?.phase === 'FAILED' ? r : undefined;
  }, { timeoutMs: 60_000 });
  t.regex(refusedMod.status?.message ?? '', /refuses web: spec\.template\.spec\.hostNetwork \(host namespaces are not allowed\)/);
  const [after] = (await b.kube.apps.listNamespacedDeployment({ namespace: 'drone-a' })).items;
  t.is(after?.metadata?.generation, before, 'the running Deployment\'s spec was not touched');
  t.not(after?.spec?.template.spec?.hostNetwork, true);

  // released: the slice leaves the quota
  await a.kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: APPS, plural: 'dronefederateddeployments', name: 'web' });
  const emptied = await waitFor('the quota to fall back to nothing', async () => {
    const q = await b.kube.core.readNamespacedResourceQuota({ namespace: 'drone-a', name: 'edgeshifu-hosted' });
    return q.spec?.hard?.pods === '0' ? q : undefined;
  }, { timeoutMs: 60_000 });
  t.deepEqual(emptied.spec?.hard, { 'requests.cpu': '0', 'requests.memory': '0', pods: '0' });
});
