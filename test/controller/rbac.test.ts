// The controller's RBAC is exactly what it uses: the grants are
// listed as its ServiceAccount sees them and compared with the expected table, and the controller
// is run with that ServiceAccount's own token.
import test from 'ava';
import { endpointFromKubeconfig, KubeClient } from '../../shared/kube/client.ts';
import { fileURLToPath } from 'node:url';
import { kubectl } from '../support/kubectl.ts';
import { startController } from '../support/controller.ts';
import { createLogger } from '../../shared/log.ts';
import { LeaderElector } from '../../controller/leader.ts';
import type { Kube } from '../support/cluster.ts';
import { createDevice, edgeCluster, thermometer, waitForCondition } from './fixtures.ts';

const MANIFESTS = fileURLToPath(new URL('../../manifests/controller/', import.meta.url));
const SA = 'system:serviceaccount:edgeshifu-system:edgeshifu-controller';

/** "resource [names] [verbs]" rows of `kubectl auth can-i --list`. */
// kubectl lists a resource's verbs in the order its roles' rules give them, and that order follows
// how the API server happens to list several roles: compare them in Kubernetes' own verb order.
const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
function canonicalVerbs(grant: string): string {
  return grant.replace(/\[([^\]]*)\]$/, (_, verbs: string) => `[${verbs.split(' ').sort((a, b) => VERB_ORDER.indexOf(a) - VERB_ORDER.indexOf(b)).join(' ')}]`);
}

async function grants(kube: Kube, user: string, namespace: string): Promise<Set<string>> {
  const result = await kubectl(kube.kubeconfigPath, ['auth', 'can-i', '--list', `--as=${user}`, '-n', namespace]);
  if (result.code !== 0) throw new Error(result.stderr);
  const rows = result.stdout.trim().split('\n').slice(1).map((line) => canonicalVerbs(line.trim().split(/\s{2,}|\s+(?=\[)/).join(' ')));
  return new Set(rows);
}

async function extraGrants(kube: Kube, namespace: string): Promise<string[]> {
  // what every authenticated identity may do (discovery, self reviews) is not the controller's
  const baseline = await grants(kube, 'system:serviceaccount:edgeshifu-system:nobody', namespace);
  return [...await grants(kube, SA, namespace)].filter((g) => !baseline.has(g)).sort();
}

async function applyManifests(kube: Kube): Promise<void> {
  for (const file of ['namespaces.yaml', 'rbac.yaml']) {
    const result = await kubectl(kube.kubeconfigPath, ['apply', '-f', `${MANIFESTS}${file}`]);
    if (result.code !== 0) throw new Error(result.stderr);
  }
}

const CLUSTER_WIDE = [
  'edgedevices.shifu.edgenesis.io [] [] [get list watch patch]',
  'edgedevices.shifu.edgenesis.io/status [] [] [get patch]',
  'edgenodes.shifu.edgenesis.io [] [] [get list watch]',
  'events [] [] [create]',
  'nodes [] [] [get list watch]',
  'pods [] [] [get list watch]',
  'rolebindings.rbac.authorization.k8s.io [] [] [get create patch delete]',
  'roles.rbac.authorization.k8s.io [] [] [get create patch delete]',
  'subjectaccessreviews.authorization.k8s.io [] [] [create]',
  'telemetryservices.shifu.edgenesis.io [] [] [get]',
  'tokenreviews.authentication.k8s.io [] [] [create]',
];

test.serial('the controller ServiceAccount holds exactly the grants it uses, namespace by namespace', async (t) => {
  const { kube } = await edgeCluster(t);
  await applyManifests(kube);
  t.deepEqual(await extraGrants(kube, 'devices'), CLUSTER_WIDE);
  t.deepEqual(await extraGrants(kube, 'deviceshifu'), [...CLUSTER_WIDE,
    'configmaps [] [] [list watch]',
    'deployments.apps [] [] [get list watch create patch delete]',
    'serviceaccounts [] [] [get list watch create patch delete]',
    'services [] [] [get list watch create patch delete]',
  ].sort());
  t.deepEqual(await extraGrants(kube, 'edgeshifu-system'), [...CLUSTER_WIDE, 'leases.coordination.k8s.io [] [] [get create update]'].sort());
  const secrets = await kubectl(kube.kubeconfigPath, ['auth', 'can-i', 'get', 'secrets', `--as=${SA}`, '-A']);
  t.is(secrets.stdout.trim(), 'no', 'never secrets');
});

const REAR = fileURLToPath(new URL('../../manifests/overlays/federation-member/rear.yaml', import.meta.url));

test.serial('REAR adds exactly its own resources, and never secrets, nodes or pods beyond reading them', async (t) => {
  const { kube } = await edgeCluster(t);
  await applyManifests(kube);
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', REAR]);
  t.is(applied.code, 0, applied.stderr);
  const rear = [
    ...['allocations', 'contracts', 'flavors', 'peeringcandidates', 'reservations', 'transactions'].map((r) => `${r}.shifu.edgenesis.io [] [] [get list watch create patch delete]`),
    ...['allocations', 'contracts', 'peeringcandidates', 'reservations', 'solvers'].map((r) => `${r}.shifu.edgenesis.io/status [] [] [patch]`),
    'solvers.shifu.edgenesis.io [] [] [get list watch]',
  ];
  t.deepEqual(await extraGrants(kube, 'apps'), [...CLUSTER_WIDE, ...rear].sort());
  for (const [verb, resource] of [['get', 'secrets'], ['create', 'nodes'], ['delete', 'pods'], ['create', 'solvers.shifu.edgenesis.io']] as const) {
    const can = await kubectl(kube.kubeconfigPath, ['auth', 'can-i', verb, resource, `--as=${SA}`, '-A']);
    t.is(can.stdout.trim(), 'no', `never ${verb} ${resource}`);
  }
});

const PEERING = fileURLToPath(new URL('../../manifests/overlays/federation-member/rear-peering.yaml', import.meta.url));

test.serial('REAR\'s peering adds the rights of a virtual node\'s kubelet and of the provider\'s hosted namespaces, and its Leases only in kube-node-lease', async (t) => {
  const { kube } = await edgeCluster(t);
  await applyManifests(kube);
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', PEERING]);
  t.is(applied.code, 0, applied.stderr);
  const merged = (extra: string[]): string[] => {
    const byResource = new Map(CLUSTER_WIDE.map((g) => [g.split(' ')[0] ?? '', g]));
    for (const g of extra) byResource.set(g.split(' ')[0] ?? '', g);
    return [...byResource.values()].sort();
  };
  const peering = [
    'limitranges [] [] [create patch]', 'namespaces [] [] [create patch]', 'networkpolicies.networking.k8s.io [] [] [create patch]',
    'nodes [] [] [get list watch create patch delete]', 'nodes/status [] [] [patch]',
    'pods [] [] [get list watch create delete]', 'pods/log [] [] [get]', 'pods/status [] [] [patch]', 'resourcequotas [] [] [create patch]',
    'services [] [] [get list watch create]', 'endpointslices.discovery.k8s.io [] [] [get list watch create patch delete]',
  ];
  t.deepEqual(await extraGrants(kube, 'apps'), merged(peering));
  t.deepEqual(await extraGrants(kube, 'kube-node-lease'), merged([...peering, 'leases.coordination.k8s.io [] [] [create patch delete]']));
  for (const [verb, resource] of [['get', 'secrets'], ['patch', 'pods'], ['create', 'leases.coordination.k8s.io']] as const) {
    const can = await kubectl(kube.kubeconfigPath, ['auth', 'can-i', verb, resource, `--as=${SA}`, '-n', 'apps']);
    t.is(can.stdout.trim(), 'no', `never ${verb} ${resource} outside its place`);
  }
});

test.serial('the controller does its whole job with only its ServiceAccount token', async (t) => {
  const { kube } = await edgeCluster(t);
  await applyManifests(kube);
  await kube.addNode('edge-1');
  const token = await kube.core.createNamespacedServiceAccountToken({ namespace: 'edgeshifu-system', name: 'edgeshifu-controller', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const admin = endpointFromKubeconfig(kube.kubeconfigPath);
  const client = new KubeClient({ server: admin.server, ca: admin.ca, token: token.status?.token });
  t.teardown(() => { client.close(); });

  const elector = new LeaderElector({ client, namespace: 'edgeshifu-system', name: 'edgeshifu-controller', identity: 'test-replica', logger: createLogger('test', { level: 'silent' }), retryPeriodMs: 100 });
  const outcome = elector.run(() => { elector.stop(); return Promise.resolve(); });
  t.is(await outcome, 'stopped');
  const lease = await kubectl(kube.kubeconfigPath, ['get', 'lease', '-n', 'edgeshifu-system', 'edgeshifu-controller', '-o', 'jsonpath={.spec.holderIdentity}']);
  t.is(lease.code, 0, 'the lease exists: it was taken');
  t.is(lease.stdout, '', 'and handed back on stop');

  await startController(t, kube, [], client);
  await createDevice(kube, thermometer());
  await waitForCondition(kube, 'edgedevice-thermometer', 'BundleReady', { status: 'True' });
  t.pass();
});
