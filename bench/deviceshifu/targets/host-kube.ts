// --kube for the shared host: its devices as the controller would leave them on a private control
// plane (one per bench run, shared by the host targets): per device an EdgeDevice, a ConfigMap and
// a Service labelled for the host, whose targetPort is the device's port. The host then reads them
// through the API (one watch for the Services, two per device), as in a pod.
import { stringify } from 'yaml';
import { ANNOTATION_CONFIG_MAP, LABEL_HOST } from '../../../shared/node-host.ts';
import type { BenchContext } from '../target.ts';

interface Cluster { readonly kubeconfig: string; readonly apply: (docs: unknown[]) => Promise<void>; readonly stop: () => Promise<void> }

let shared: Promise<Cluster> | undefined;
let users = 0;

async function startShared(): Promise<Cluster> {
  const [{ startCluster }, { Kube }, { installCrds }, { kubectl }] = await Promise.all([
    import('../../../test/support/controlplane/cluster.ts'), import('../../../test/support/cluster.ts'), import('../../../test/support/crds.ts'), import('../../../test/support/kubectl.ts'),
  ]);
  const cluster = await startCluster({ name: 'edgeshifu-bench-host' });
  const kube = new Kube(cluster.kubeconfigPath);
  await installCrds(kube);
  for (const name of ['devices', 'deviceshifu']) await kube.core.createNamespace({ body: { metadata: { name } } });
  const apply = async (docs: unknown[]): Promise<void> => {
    const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], docs.map((d) => stringify(d)).join('---\n'));
    if (applied.code !== 0) throw new Error(applied.stderr);
  };
  return { kubeconfig: cluster.kubeconfigPath, apply, stop: () => cluster.stop() };
}

function deviceObjects(context: BenchContext, hostId: string, name: string, port: number): unknown[] {
  return [
    { apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice', metadata: { name, namespace: 'devices' },
      spec: { sku: 'BenchDevice', connection: 'Ethernet', address: context.device, protocol: 'HTTP', configMapName: name } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'deviceshifu' },
      data: { driverProperties: 'driverSku: BenchDevice\ndriverImage: none\n', instructions: `instructionSettings:\n  defaultTimeoutSeconds: 8\ninstructions:\n  ${context.path}:\n    readWrite: R\n` } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'deviceshifu',
      labels: { [LABEL_HOST]: hostId, 'shifu.edgenesis.io/edgedevice': name, 'shifu.edgenesis.io/edgedevice-namespace': 'devices' },
      annotations: { [ANNOTATION_CONFIG_MAP]: name } },
    spec: { selector: { [LABEL_HOST]: hostId }, ports: [{ name: 'http', port: 80, targetPort: port }] } },
  ];
}

/** The host's arguments and environment in Kubernetes mode, and how to let the cluster go. */
export async function hostInCluster(context: BenchContext, ports: readonly number[]): Promise<{ args: string[]; env: NodeJS.ProcessEnv; stop: () => Promise<void> }> {
  users += 1;
  shared ??= startShared();
  const cluster = await shared;
  const hostId = `bench-${String(ports.length)}`;
  await cluster.apply(ports.flatMap((port, i) => deviceObjects(context, hostId, `${hostId}-device-${String(i)}`, port)));
  return {
    args: ['--host-id', hostId, '--namespace', 'deviceshifu'],
    env: { KUBECONFIG: cluster.kubeconfig },
    stop: async () => {
      users -= 1;
      if (users === 0) await cluster.stop();
    },
  };
}
