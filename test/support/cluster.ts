// What a test needs from Kubernetes: a ready cluster (the run's shared one, or a private one),
// typed clients, a fresh namespace that is deleted afterwards, and KWOK nodes.
import { randomBytes } from 'node:crypto';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, type V1Node } from '@kubernetes/client-node';
import type { ExecutionContext } from 'ava';
import { startCluster, type ClusterOptions, type TestCluster } from './controlplane/cluster.ts';
import { kwokNode, type KwokNodeSpec } from './kwok.ts';
import { waitFor } from './wait.ts';

/** Set by test/run.ts: the kubeconfig of the cluster every test file of the run shares. */
export const SHARED_KUBECONFIG_ENV = 'EDGESHIFU_TEST_KUBECONFIG';

export class Kube {
  readonly kc: KubeConfig;
  readonly kubeconfigPath: string;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly custom: CustomObjectsApi;

  constructor(kubeconfigPath: string) {
    this.kubeconfigPath = kubeconfigPath;
    this.kc = new KubeConfig();
    this.kc.loadFromFile(kubeconfigPath);
    this.core = this.kc.makeApiClient(CoreV1Api);
    this.apps = this.kc.makeApiClient(AppsV1Api);
    this.custom = this.kc.makeApiClient(CustomObjectsApi);
  }

  /** Creates a KWOK node and waits until KWOK reports it Ready. */
  async addNode(name: string, spec: KwokNodeSpec = {}): Promise<V1Node> {
    await this.core.createNode({ body: kwokNode(name, spec) });
    return waitFor(`node ${name} to be Ready`, async () => {
      const node = await this.core.readNode({ name });
      // Ready in status is not enough: the node lifecycle controller removes its not-ready
      // taint a moment later, and a pod scheduled before that is refused for the taint.
      const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      const lifecycleTainted = node.spec?.taints?.some((taint) => taint.key.startsWith('node.kubernetes.io/')) === true;
      return ready && !lifecycleTainted ? node : undefined;
    }, { timeoutMs: 60_000 });
  }

  async deleteNode(name: string): Promise<void> {
    await this.core.deleteNode({ name }).catch(() => undefined);
  }
}

let shared: Promise<Kube> | undefined;

/**
 * The run's shared cluster (started once by test/run.ts); a test file run on its own with
 * `npx ava <file>` gets a private cluster for its worker instead.
 */
export async function sharedKube(): Promise<Kube> {
  shared ??= (async () => {
    const path = process.env[SHARED_KUBECONFIG_ENV];
    if (path !== undefined && path !== '') return new Kube(path);
    const cluster = await startCluster({ name: `edgeshifu-worker-${process.pid}` });
    process.once('beforeExit', () => { void cluster.stop(); });
    return new Kube(cluster.kubeconfigPath);
  })();
  return shared;
}

/** A cluster of the test's own (for restarts, federation, isolation), stopped when the test ends. */
export async function ownCluster(t: ExecutionContext, options: ClusterOptions = {}): Promise<{ cluster: TestCluster; kube: Kube }> {
  const cluster = await startCluster(options);
  t.teardown(() => cluster.stop());
  return { cluster, kube: new Kube(cluster.kubeconfigPath) };
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/** A namespace for this test alone, deleted when the test ends. */
export async function freshNamespace(t: ExecutionContext, kube: Kube, prefix = 't'): Promise<string> {
  const name = uniqueName(prefix);
  await kube.core.createNamespace({ body: { metadata: { name, labels: { 'edgeshifu.io/test': 'true' } } } });
  t.teardown(async () => { await kube.core.deleteNamespace({ name }).catch(() => undefined); });
  return name;
}
