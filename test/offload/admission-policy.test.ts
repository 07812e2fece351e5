// The origin side of the trust boundary, on a real API server: the ValidatingAdmissionPolicy in
// manifests/overlays/federation-member holds a DroneFederatedDeployment's templates to its
// namespace's Pod Security level (its pod-security.kubernetes.io/enforce label), in CEL, and the
// refusal names each offending field by path.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { ownCluster, type Kube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { kubectl } from '../support/kubectl.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';

const POLICY = fileURLToPath(new URL('../../manifests/overlays/federation-member/offload-pod-security.yaml', import.meta.url));
const FIELD = 'spec.components[name=db].template.spec.template.spec';

function app(name: string, namespace: string, pod: Record<string, unknown>, container: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION}`, kind: 'DroneFederatedDeployment', metadata: { name, namespace },
    spec: { components: [{ name: 'db', template: { spec: { template: { spec: { ...pod, containers: [{ name: 'db', image: 'example.com/db:1', ...container }] } } } } }] },
  };
}

const RESTRICTED_CONTAINER = { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } };
const RESTRICTED_POD = { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } };
const PRIVILEGED_POD = { hostNetwork: true, hostPID: true, volumes: [{ name: 'root', hostPath: { path: '/' } }] };
const PRIVILEGED_CONTAINER = { securityContext: { privileged: true, capabilities: { add: ['SYS_ADMIN'] } } };

async function create(kube: Kube, body: Record<string, unknown>, dryRun = false): Promise<{ code: number; stderr: string }> {
  return kubectl(kube.kubeconfigPath, ['create', ...(dryRun ? ['--dry-run=server'] : []), '-f', '-'], JSON.stringify(body));
}

test('a DroneFederatedDeployment may offload only what its namespace\'s Pod Security level lets run there; the refusal names every field', async (t) => {
  const { kube } = await ownCluster(t);
  await installCrds(kube);
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', POLICY]);
  t.is(applied.code, 0, applied.stderr);
  for (const [name, level] of [['strict', 'restricted'], ['base', 'baseline'], ['open', undefined]] as const) {
    await kube.core.createNamespace({ body: { metadata: { name, labels: level === undefined ? {} : { 'pod-security.kubernetes.io/enforce': level } } } });
  }
  // the API server takes the binding into use a moment after it is made
  const refused = await waitFor('the policy to refuse a privileged template', async () => {
    const r = await create(kube, app('probe', 'strict', PRIVILEGED_POD, PRIVILEGED_CONTAINER), true);
    return r.code === 0 ? undefined : r;
  }, { timeoutMs: 60_000, intervalMs: 250 });
  t.regex(refused.stderr, /namespace strict enforces Pod Security restricted/);
  for (const field of ['hostNetwork', 'hostPID', 'volumes[name=root].hostPath', 'containers[name=db].securityContext.privileged', 'containers[name=db].securityContext.capabilities.add', 'containers[name=db].securityContext.allowPrivilegeEscalation']) {
    t.true(refused.stderr.includes(`${FIELD}.${field}`), `names ${field}: ${refused.stderr}`);
  }

  // restricted: a compliant template passes; one that leaves restricted's settings unsaid is told each of them
  t.is((await create(kube, app('ok', 'strict', RESTRICTED_POD, RESTRICTED_CONTAINER))).code, 0);
  const unsaid = await create(kube, app('plain', 'strict', {}));
  t.not(unsaid.code, 0);
  for (const field of ['allowPrivilegeEscalation', 'capabilities.drop', 'runAsNonRoot', 'seccompProfile.type']) t.true(unsaid.stderr.includes(`${FIELD}.containers[name=db].securityContext.${field}`), `names ${field}: ${unsaid.stderr}`);
  const chown = await create(kube, app('chown', 'strict', RESTRICTED_POD, { securityContext: { ...RESTRICTED_CONTAINER.securityContext, capabilities: { drop: ['ALL'], add: ['CHOWN'] } } }));
  t.regex(chown.stderr, /capabilities\.add \(restricted does not allow adding these capabilities\)/);

  // an update is held to the same rule
  const patched = await kubectl(kube.kubeconfigPath, ['patch', 'dronefederateddeployments.shifu.edgenesis.io', 'ok', '-n', 'strict', '--type=json',
    '-p', JSON.stringify([{ op: 'add', path: '/spec/components/0/template/spec/template/spec/hostIPC', value: true }])]);
  t.not(patched.code, 0);
  t.true(patched.stderr.includes(`${FIELD}.hostIPC`), patched.stderr);

  // baseline: a plain template and an allowed capability pass, host access does not
  t.is((await create(kube, app('plain', 'base', {}, { securityContext: { capabilities: { add: ['CHOWN'] } } }))).code, 0);
  const host = await create(kube, app('host', 'base', PRIVILEGED_POD, PRIVILEGED_CONTAINER));
  t.regex(host.stderr, /namespace base enforces Pod Security baseline/);
  t.true(host.stderr.includes(`${FIELD}.containers[name=db].securityContext.capabilities.add (baseline`), host.stderr);
  t.false(host.stderr.includes('allowPrivilegeEscalation'), 'restricted\'s rules are not baseline\'s');

  // no label: privileged, as Pod Security admission itself treats it
  t.is((await create(kube, app('host', 'open', PRIVILEGED_POD, PRIVILEGED_CONTAINER))).code, 0);
});
