// manifests/shifud grants exactly what shifud uses: `kubectl auth can-i --list` as its
// ServiceAccount shows nothing beyond an unbound ServiceAccount's defaults and shifud's own
// rules, and shifud running on that ServiceAccount's token does all of its work.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { KubeClient, endpointFromKubeconfig } from '../../shared/kube/client.ts';
import { parseAllDocuments, stringify } from 'yaml';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName, type Kube } from '../support/cluster.ts';
import { kubectl } from '../support/kubectl.ts';
import { MockDevice, createDevice, fastConfig, readEdgeNode, startShifud, waitReachable } from './harness.ts';
import { waitFor } from '../support/wait.ts';

const MANIFESTS = fileURLToPath(new URL('../../manifests/shifud/', import.meta.url));

/** What shifud calls, as `resource verb` pairs (shifud/kube-clients.ts and its informer). */
const USED = [
  'edgenodes.shifu.edgenesis.io get', 'edgenodes.shifu.edgenesis.io create',
  'edgenodes.shifu.edgenesis.io/status patch',
  'edgedevices.shifu.edgenesis.io list', 'edgedevices.shifu.edgenesis.io watch',
  'edgedevices.shifu.edgenesis.io/status patch',
];

type Manifest = { kind: string; metadata: { name: string; namespace?: string }; roleRef?: { name: string }; subjects?: Array<{ namespace?: string }> };

/** The kustomize build, moved into the test's namespace with cluster-wide names made unique. */
async function renderedManifests(kube: Kube, namespace: string, suffix: string): Promise<Manifest[]> {
  const built = await kubectl(kube.kubeconfigPath, ['kustomize', MANIFESTS]);
  if (built.code !== 0) throw new Error(`kubectl kustomize manifests/shifud failed: ${built.stderr}`);
  return parseAllDocuments(built.stdout).map((d) => d.toJSON() as Manifest).map((m) => {
    if (m.metadata.namespace !== undefined) m.metadata.namespace = namespace;
    if (m.kind === 'ClusterRole' || m.kind === 'ClusterRoleBinding') m.metadata.name += suffix;
    if (m.roleRef !== undefined) m.roleRef.name += suffix;
    for (const subject of m.subjects ?? []) subject.namespace = namespace;
    return m;
  });
}

/** `resource verb` pairs (and non-resource URLs) from `kubectl auth can-i --list`. */
async function grants(kube: Kube, namespace: string, serviceAccount: string): Promise<Set<string>> {
  const listed = await kubectl(kube.kubeconfigPath, ['auth', 'can-i', '--list', `--namespace=${namespace}`, `--as=system:serviceaccount:${namespace}:${serviceAccount}`]);
  if (listed.code !== 0) throw new Error(`kubectl auth can-i --list failed: ${listed.stderr}`);
  const pairs = new Set<string>();
  for (const line of listed.stdout.split('\n').slice(1)) {
    const [resource = '', urls = '', names = '', verbs = ''] = line.trim().split(/\s{2,}/);
    if (line.trim() === '') continue;
    const subject = resource !== '' ? resource : urls;
    for (const verb of verbs.replace(/^\[|\]$/g, '').split(' ')) pairs.add(`${subject}${names === '[]' ? '' : ` ${names}`} ${verb}`);
  }
  return pairs;
}

/** shifud's client on the ServiceAccount's own token (no client certificate). */
async function tokenClient(kube: Kube, namespace: string, serviceAccount: string): Promise<KubeClient> {
  const token = await kubectl(kube.kubeconfigPath, ['create', 'token', serviceAccount, `--namespace=${namespace}`, '--duration=1h']);
  if (token.code !== 0) throw new Error(`kubectl create token failed: ${token.stderr}`);
  const { server, ca, insecureSkipTlsVerify } = endpointFromKubeconfig(kube.kubeconfigPath);
  return new KubeClient({ server, ca, insecureSkipTlsVerify, token: token.stdout.trim() });
}

test('the shifud ServiceAccount may do exactly what shifud uses, and that is enough to run it', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud-rbac');
  const suffix = `-${namespace}`;
  const manifests = await renderedManifests(kube, namespace, suffix);
  t.deepEqual(manifests.map((m) => m.kind).sort(), ['ClusterRole', 'ClusterRoleBinding', 'DaemonSet', 'ServiceAccount']);
  const rbac = manifests.filter((m) => m.kind !== 'DaemonSet');
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '--server-side', '--field-manager=shifud-test', '-f', '-'], rbac.map((m) => stringify(m)).join('---\n'));
  t.is(applied.code, 0, applied.stderr);
  t.teardown(async () => { await kubectl(kube.kubeconfigPath, ['delete', `clusterrole/edgeshifu-shifud${suffix}`, `clusterrolebinding/edgeshifu-shifud${suffix}`, '--ignore-not-found']); });
  // the DaemonSet is valid as the API server sees it (dry run: no pods on the test's nodes)
  const daemonSet = manifests.filter((m) => m.kind === 'DaemonSet').map((m) => stringify(m)).join('');
  const dryRun = await kubectl(kube.kubeconfigPath, ['apply', '--dry-run=server', '-f', '-'], daemonSet);
  t.is(dryRun.code, 0, dryRun.stderr);

  await kubectl(kube.kubeconfigPath, ['create', 'serviceaccount', 'nobody', `--namespace=${namespace}`]);
  const baseline = await waitFor('the unbound ServiceAccount\'s defaults', async () => { const g = await grants(kube, namespace, 'nobody'); return g.size > 0 ? g : undefined; });
  const shifud = await waitFor('shifud\'s grants', async () => {
    const g = await grants(kube, namespace, 'shifud');
    return USED.every((u) => g.has(u)) ? g : undefined;
  });
  t.log([...shifud].filter((g) => !baseline.has(g)).join(', '));
  const extra = [...shifud].filter((g) => !baseline.has(g) && !USED.includes(g));
  t.deepEqual(extra, [], 'nothing beyond what shifud uses');

  // shifud on the ServiceAccount's own token: registers, heartbeats, probes, writes device status
  const device = await new MockDevice().up();
  t.teardown(() => device.down());
  await createDevice(kube, namespace, 'plc', { protocol: 'TCP', address: device.address });
  const node = uniqueName('shifud-rbac');
  const client = await tokenClient(kube, namespace, 'shifud');
  t.teardown(() => { client.close(); });
  const running = await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace }), { client });
  await waitReachable(kube, namespace, 'plc', { status: 'True' });
  await waitFor('the EdgeNode listing the device', async () => (await readEdgeNode(kube, node))?.status?.devices?.some((d) => d.name === 'plc') === true ? true : undefined);
  t.is(running.gate.stats.failures, 0, 'no call was refused');
});
