// The k3s install: every kustomize overlay renders with kubectl, runs the one image with
// the component as its argument, and is accepted by a real API server (server-side dry-run).
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import type { KubernetesObject, V1PodTemplateSpec } from '@kubernetes/client-node';
import { sharedKube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { kubectl } from '../support/kubectl.ts';

const IMAGE = 'ghcr.io/edgeshifu/edgeshifu:0.1.0';
const COMPONENTS = ['controller', 'deviceshifu', 'shifud', 'mockdevice'];

type Rendered = KubernetesObject & { spec?: { replicas?: number; type?: string; template?: V1PodTemplateSpec } };

const OVERLAYS = [
  { dir: 'manifests/base', controllerReplicas: 2, serviceType: undefined, federations: 0 },
  { dir: 'manifests/overlays/single-node', controllerReplicas: 1, serviceType: undefined, federations: 0 },
  { dir: 'manifests/overlays/multi-node', controllerReplicas: 2, serviceType: undefined, federations: 0 },
  { dir: 'manifests/overlays/federation-member', controllerReplicas: 2, serviceType: undefined, federations: 0 },
] as const;

async function render(kubeconfig: string, dir: string): Promise<{ text: string; objects: Rendered[] }> {
  const rendered = await kubectl(kubeconfig, ['kustomize', dir]);
  if (rendered.code !== 0) throw new Error(`kubectl kustomize ${dir}: ${rendered.stderr}`);
  return { text: rendered.stdout, objects: parseAllDocuments(rendered.stdout).map((d) => d.toJS() as Rendered) };
}

const find = (objects: readonly Rendered[], kind: string, name: string): Rendered | undefined =>
  objects.find((o) => o.kind === kind && o.metadata?.name === name);

for (const overlay of OVERLAYS) {
  test(`${overlay.dir} renders, runs every component from the one image, and a real API server accepts it`, async (t) => {
    const kube = await sharedKube();
    await installCrds(kube);
    const { text, objects } = await render(kube.kubeconfigPath, overlay.dir);

    const containers = objects.flatMap((o) => o.spec?.template?.spec?.containers ?? []);
    t.true(containers.length >= 2, 'the controller and shifud have containers');
    for (const c of containers) {
      t.is(c.image, IMAGE, `container ${c.name} runs the one image`);
      t.is(c.command, undefined, `container ${c.name} keeps the image's entrypoint`);
      t.true(COMPONENTS.includes(c.args?.[0] ?? ''), `container ${c.name} names its component: ${JSON.stringify(c.args)}`);
    }
    t.is(find(objects, 'Deployment', 'edgeshifu-controller')?.spec?.replicas, overlay.controllerReplicas);
    t.truthy(find(objects, 'DaemonSet', 'shifud'), 'shifud runs on every node');
    t.is(find(objects, 'Service', 'edgeshifu-controller')?.spec?.type, overlay.serviceType);
    t.is(objects.filter((o) => o.kind === 'Federation').length, overlay.federations);
    // Only a federation member has anything outside the cluster: its broker, alone behind the LoadBalancer.
    const exposed = objects.filter((o) => o.kind === 'Service' && ['LoadBalancer', 'NodePort'].includes(o.spec?.type ?? ''));
    const member = overlay.dir.endsWith('federation-member');
    t.deepEqual(exposed.map((o) => o.metadata?.name), member ? ['edgeshifu-broker'] : []);
    if (member) t.deepEqual((exposed[0] as { spec: { ports: unknown[] } }).spec.ports, [{ name: 'mqtts', port: 8883, targetPort: 'mqtts' }]);

    // a server-side dry-run creates nothing, namespaces included: the ones the objects live in must exist
    for (const name of ['edgeshifu-system', 'deviceshifu']) {
      await kube.core.createNamespace({ body: { metadata: { name } } }).catch(() => undefined);
    }
    const applied = await kubectl(kube.kubeconfigPath, ['apply', '--dry-run=server', '-f', '-'], text);
    t.is(applied.code, 0, applied.stderr);
    t.regex(applied.stdout, /deployment\.apps\/edgeshifu-controller (created|configured|unchanged) \(server dry run\)/);
    t.regex(applied.stdout, /daemonset\.apps\/shifud (created|configured|unchanged) \(server dry run\)/);
  });
}

test('a Federation that breaks the CRD schema is refused by the API server', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const federation = { apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'Federation', metadata: { name: 'edge-2' }, spec: { clusterId: 'edge-2', brokerUrl: 'http://not-a-broker', credentialsSecretRef: { name: 'federation-edge-2', namespace: 'edgeshifu-system' } } };
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '--dry-run=server', '-f', '-'], JSON.stringify(federation));
  t.not(applied.code, 0);
  t.regex(applied.stderr, /brokerUrl/);
});
