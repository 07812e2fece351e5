// A real node joined to a test control plane, next to its KWOK nodes: containerd (Debian), the
// kubelet and kube-proxy (built from the pinned Kubernetes module), pods on a private host bridge
// whose gateway is also the API server's one address. One per host (the kubelet's port, the
// kubepods cgroups and kube-proxy's iptables chains are the host's): a lock file holds it, and a
// run that finds the lock of a process that died first tears that node down.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { startCluster, type ClusterOptions, type TestCluster } from '../controlplane/cluster.ts';
import { freePorts } from '../controlplane/ports.ts';
import { isAlive, type ManagedProcess } from '../controlplane/process.ts';
import { kubectl } from '../kubectl.ts';
import { waitFor } from '../wait.ts';
import { realNodeBinaries } from './binaries.ts';
import { importImage, startContainerd } from './containerd.ts';
import { corednsObjects, writeCorednsImage } from './coredns.ts';
import { checkHostPackages, createBridge, NETWORK, recordHostState } from './host.ts';
import { kubeletProcess, kubeProxyConfig, kubeProxyProcess, type NodeLayout } from './kubelet.ts';
import { writePauseImage } from './pause-image.ts';
import { teardownNode, type NodeRecord } from './teardown.ts';

export const REAL_NODE_NAME = 'edgeshifu-real-node';
const LOCK = '/run/edgeshifu-real-node.json';

interface LockRecord { readonly owner: number; readonly node?: NodeRecord }

async function readLock(): Promise<LockRecord | undefined> {
  return readFile(LOCK, 'utf8').then((text) => JSON.parse(text) as LockRecord, () => undefined);
}

/** Waits for the host's real node to be free; tears down the node of an owner that died. */
async function acquireHostLock(owner: number): Promise<void> {
  await waitFor('the host\'s real node to be free (another run holds it)', async () => {
    const held = await readLock();
    if (held !== undefined && isAlive(held.owner)) return undefined;
    if (held?.node !== undefined) await teardownNode(held.node);
    await rm(LOCK, { force: true });
    return writeFile(LOCK, JSON.stringify({ owner }), { flag: 'wx' }).then(() => true, () => undefined);
  }, { timeoutMs: 30 * 60_000, intervalMs: 1000 });
}

export interface RealNodeOptions extends ClusterOptions {
  /** OCI archives imported into the node's containerd before the kubelet starts (the edgeshifu image). */
  readonly images?: readonly string[];
}

export interface RealNodeCluster {
  readonly cluster: TestCluster;
  readonly nodeName: string;
  /** The kubelet's own log, for a test that failed. */
  readonly logDir: string;
  stop(): Promise<void>;
}

async function waitNodeReady(cluster: TestCluster, kubelet: ManagedProcess): Promise<V1Node> {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  return waitFor(`node ${REAL_NODE_NAME} to be Ready`, async () => {
    const node = await core.readNode({ name: REAL_NODE_NAME });
    const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    const tainted = node.spec?.taints?.some((t) => t.key.startsWith('node.kubernetes.io/')) === true;
    return ready && !tainted ? node : undefined;
  }, { timeoutMs: 180_000, intervalMs: 500, abortIf: () => kubelet.running ? undefined : `the kubelet exited:\n${kubelet.tail()}` });
}

/** CoreDNS in kube-system, applied as any manifest is, and Ready before a test's pods need names. */
async function startClusterDns(cluster: TestCluster): Promise<void> {
  const applied = await kubectl(cluster.kubeconfigPath, ['apply', '-f', '-'], corednsObjects().map((o) => stringify(o)).join('---\n'));
  if (applied.code !== 0) throw new Error(`applying CoreDNS failed: ${applied.stderr}`);
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  await waitFor('CoreDNS to be Ready', async () => {
    const pods = await core.listNamespacedPod({ namespace: 'kube-system', labelSelector: 'k8s-app=kube-dns' });
    return pods.items.some((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true) ? true : undefined;
  }, { timeoutMs: 180_000, intervalMs: 500 });
}

async function startNode(cluster: TestCluster, binDir: string, record: { dir: string; images: readonly string[]; hostState: NodeRecord['hostState']; detach: boolean }): Promise<{ processes: ManagedProcess[]; node: NodeRecord }> {
  const [kubeletHealthz = 0, proxyHealthz = 0, proxyMetrics = 0] = await freePorts(3);
  const layout: NodeLayout = { dir: record.dir, binDir, nodeName: REAL_NODE_NAME, cluster, detach: record.detach, ports: { kubeletHealthz, proxyHealthz, proxyMetrics } };
  const sandboxImage = await writePauseImage(binDir, join(record.dir, 'pause.oci.tar'));
  await writeCorednsImage(binDir, join(record.dir, 'coredns.oci.tar'));
  const containerd = await startContainerd({ dir: record.dir, sandboxImage, detach: record.detach });
  for (const archive of [join(record.dir, 'pause.oci.tar'), join(record.dir, 'coredns.oci.tar'), ...record.images]) await importImage(archive);
  const proxyConfig = await kubeProxyConfig(layout);
  const kubelet = await kubeletProcess(layout);
  const kubeProxy = kubeProxyProcess(layout, proxyConfig);
  kubelet.start();
  kubeProxy.start();
  const node: NodeRecord = { dir: record.dir, binDir, kubeProxyConfig: proxyConfig, pids: { containerd: containerd.pid, kubelet: kubelet.pid, kubeProxy: kubeProxy.pid }, hostState: record.hostState };
  await writeFile(LOCK, JSON.stringify({ owner: process.pid, node }));
  await waitNodeReady(cluster, kubelet);
  await startClusterDns(cluster);
  return { processes: [containerd, kubelet, kubeProxy], node };
}

/**
 * Starts a control plane whose API server listens on the node's bridge address, and a real node
 * joined to it. `stop()` takes both down and restores the host.
 */
export async function startRealNodeCluster(options: RealNodeOptions = {}): Promise<RealNodeCluster> {
  await checkHostPackages();
  const binDir = await realNodeBinaries();
  await acquireHostLock(process.pid);
  const hostState = Object.fromEntries(await recordHostState());
  let record: NodeRecord = { dir: '', binDir, kubeProxyConfig: '', pids: {}, hostState };
  let cluster: TestCluster | undefined;
  const stop = async (): Promise<void> => {
    await teardownNode(record);
    await cluster?.stop({ keepDir: options.detach === true });
    if (record.dir !== '' && options.detach !== true) await rm(record.dir, { recursive: true, force: true });
    await rm(LOCK, { force: true });
  };
  try {
    await createBridge();
    cluster = await startCluster({ ...options, apiAddress: NETWORK.gateway });
    const dir = join(cluster.dir, 'real-node');
    await mkdir(join(dir, 'logs'), { recursive: true });
    record = { ...record, dir };
    const started = await startNode(cluster, binDir, { dir, images: options.images ?? [], hostState, detach: options.detach === true });
    record = started.node;
    await writeFile(LOCK, JSON.stringify({ owner: options.detach === true ? started.node.pids.kubelet : process.pid, node: record }));
    return { cluster, nodeName: REAL_NODE_NAME, logDir: join(dir, 'logs'), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * `cluster:down`: tears down a detached real node recorded in the host lock, only one whose folder
 * is under `within` when given (never a test's node); true when there was one.
 */
export async function stopRealNodeFromLock(within?: string): Promise<boolean> {
  const held = await readLock();
  if (held?.node === undefined) return false;
  if (within !== undefined && !held.node.dir.startsWith(`${within}/`)) return false;
  await teardownNode(held.node);
  await rm(LOCK, { force: true });
  return true;
}

/**
 * Tears down a real node whose owner died without stopping it (a test worker ava stopped on a
 * timeout); true when there was one. test/run.ts calls it when ava is done.
 */
export async function stopAbandonedRealNode(): Promise<boolean> {
  const held = await readLock();
  if (held === undefined || isAlive(held.owner)) return false;
  return stopRealNodeFromLock();
}
