// What the real-node tests share: the cluster with its real node, the image built here on it,
// kubectl apply -k of an overlay, HTTP calls from the host to a Service's ClusterIP, and client pods
// that call by DNS name.
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DiscoveryV1Api, type V1Pod } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { buildImage } from '../../image/build.ts';
import { Kube } from '../support/cluster.ts';
import { kubectl } from '../support/kubectl.ts';
import { ctr } from '../support/realnode/containerd.ts';
import { startRealNodeCluster, type RealNodeCluster, type RealNodeOptions } from '../support/realnode/node.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);

export const REPO = resolve(import.meta.dirname, '..', '..');

export async function realNodeWithImage(options: Omit<RealNodeOptions, 'images'> = {}): Promise<{ node: RealNodeCluster; kube: Kube }> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-realnode-image-'));
  try {
    const image = await buildImage(join(dir, 'edgeshifu.oci.tar'), () => undefined);
    const node = await startRealNodeCluster({ ...options, images: [image.archive] });
    return { node, kube: new Kube(node.cluster.kubeconfigPath) };
  } finally {
    // imported into the node's containerd by now
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A real node with the image, the single-node overlay applied, its controller Ready, and a
 * namespace for the devices a test makes: where a test of a device as users run it starts.
 */
export async function singleNodeWithDevices(devices: string): Promise<{ node: RealNodeCluster; kube: Kube }> {
  const started = await realNodeWithImage();
  await applyKustomization(started.kube, join(REPO, 'manifests', 'overlays', 'single-node'));
  await readyPods(started.kube, 'edgeshifu-system', 'app.kubernetes.io/name=edgeshifu-controller');
  await started.kube.core.createNamespace({ body: { metadata: { name: devices } } });
  return started;
}

/** `kubectl apply -k` of a kustomization: a repository overlay, or one written here on top of it. */
export async function applyKustomization(kube: Kube, dir: string): Promise<void> {
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-k', dir]);
  if (applied.code !== 0) throw new Error(`kubectl apply -k ${dir} failed: ${applied.stderr}`);
}

/** A kustomization over a repository overlay with extra JSON patches (as a user's own overlay would be). */
export async function overlayOn(base: string, patches: readonly { target: Record<string, string>; patch: unknown[] }[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-overlay-'));
  await writeFile(join(dir, 'kustomization.yaml'), stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization',
    // kustomize takes a base by relative path only
    resources: [relative(dir, join(REPO, 'manifests', 'overlays', base))],
    patches: patches.map((p) => ({ target: p.target, patch: stringify(p.patch) })),
  }));
  return dir;
}

/** GET http://<host>:<port><path> from the host (a ClusterIP answers here through kube-proxy). */
export async function httpGet(host: string, port: number, path: string): Promise<{ status: number; body: string }> {
  return httpCall(host, port, path);
}

/** POST `body` to http://<host>:<port><path> from the host. */
export async function httpPost(host: string, port: number, path: string, body: string): Promise<{ status: number; body: string }> {
  return httpCall(host, port, path, body);
}

async function httpCall(host: string, port: number, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolvePromise, reject) => {
    // a connection per call, as curl makes: no pooled socket outlives a container restart
    const req = request({ host, port, path, timeout: 10_000, agent: false, method: body === undefined ? 'GET' : 'POST' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => { resolvePromise({ status: res.statusCode ?? 0, body }); });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const isReady = (pod: V1Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Waits until `count` pods matching the selector are Ready (on any node); returns them. */
export async function readyPods(kube: Kube, namespace: string, selector: string, count = 1): Promise<V1Pod[]> {
  return waitFor(`${count} Ready pod(s) ${selector} in ${namespace}`, async () => {
    const pods = (await kube.core.listNamespacedPod({ namespace, labelSelector: selector })).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
    return pods.filter(isReady).length >= count ? pods.filter(isReady) : undefined;
  }, { timeoutMs: 180_000, intervalMs: 250 });
}

/** The containerd id of a pod's container (for killing it as a crash would). */
export function containerId(pod: V1Pod, name: string): string {
  const id = pod.status?.containerStatuses?.find((c) => c.name === name)?.containerID ?? '';
  return id.replace(/^containerd:\/\//, '');
}

/** A container's main process as the kernel sees it: what the kubelet and runc really applied. */
export interface ContainerProcess { uid: number; gid: number; capEff: string; capBnd: string; noNewPrivs: boolean; seccompFilter: boolean; rootReadOnly: boolean }

export async function containerProcess(pod: V1Pod, container: string): Promise<ContainerProcess> {
  const id = containerId(pod, container);
  const row = (await ctr(['tasks', 'ls'])).split('\n').map((l) => l.trim().split(/\s+/)).find((cols) => cols[0] === id);
  if (row?.[1] === undefined) throw new Error(`no running task for container ${container} of ${pod.metadata?.name ?? '?'} (${id})`);
  const [status, mountinfo] = await Promise.all([readFile(`/proc/${row[1]}/status`, 'utf8'), readFile(`/proc/${row[1]}/mountinfo`, 'utf8')]);
  const field = (name: string): string => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(status)?.[1] ?? '';
  // mountinfo: the fifth field is the mount point, the sixth its per-mount options
  const root = mountinfo.split('\n').map((l) => l.split(' ')).find((f) => f[4] === '/');
  return { uid: Number(field('Uid').split(/\s+/)[0]), gid: Number(field('Gid').split(/\s+/)[0]), capEff: field('CapEff'), capBnd: field('CapBnd'),
    noNewPrivs: field('NoNewPrivs') === '1', seccompFilter: field('Seccomp') === '2', rootReadOnly: root?.[5]?.split(',').includes('ro') === true };
}

export async function applyObjects(kube: Kube, objects: readonly object[]): Promise<void> {
  const applied = await kubectl(kube.kubeconfigPath, ['apply', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
  if (applied.code !== 0) throw new Error(`kubectl apply failed: ${applied.stderr}`);
}

export const IMAGE = 'ghcr.io/edgeshifu/edgeshifu:0.1.0';

/** Shifu's thermometer mock as a Deployment + Service from the one image (`args: [mockdevice, thermometer]`). */
export function thermometerMock(namespace: string): object[] {
  const labels = { app: 'thermometer-mock' };
  return [
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'thermometer-mock', namespace },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [{ name: 'mock', image: IMAGE, args: ['mockdevice', 'thermometer'],
          env: [{ name: 'MOCKDEVICE_PORT', value: '11111' }, { name: 'EDGESHIFU_BIND_ADDRESS', value: '0.0.0.0' }],
          ports: [{ containerPort: 11111 }], readinessProbe: { tcpSocket: { port: 11111 }, periodSeconds: 2 },
          resources: { limits: { memory: '96Mi' } },
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } } }] } } } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'thermometer', namespace }, spec: { selector: labels, ports: [{ port: 11111, targetPort: 11111 }] } },
  ];
}

/**
 * The thermometer mock (once), Shifu's thermometer ConfigMap, and one EdgeDevice per name pointing
 * at the mock's Service: by its ClusterIP, or by its cluster DNS name with `by: 'dns'`.
 */
export async function addThermometers(kube: Kube, namespace: string, names: readonly string[], by: 'clusterIP' | 'dns' = 'clusterIP'): Promise<void> {
  await applyObjects(kube, thermometerMock(namespace));
  const configMap = parse(await readFile(join(REPO, 'test', 'support', 'shifu', 'thermometer-configmap.yaml'), 'utf8')) as object;
  await applyObjects(kube, [configMap]);
  const mock = await kube.core.readNamespacedService({ name: 'thermometer', namespace });
  const host = by === 'dns' ? `thermometer.${namespace}.svc.cluster.local` : mock.spec?.clusterIP ?? '';
  await applyObjects(kube, names.map((name) => ({ apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name, namespace },
    spec: { sku: 'Thermometer', connection: 'Ethernet', protocol: 'HTTP', address: `${host}:11111`, configMapName: 'thermometer-configmap-0.0.1' } })));
}

/**
 * Runs `node -e script` once in a pod of the image (non-root, restricted) and returns its phase
 * and log: a client inside the cluster, resolving names through the pod's resolv.conf.
 */
export async function runClientPod(kube: Kube, namespace: string, name: string, script: string): Promise<{ phase: string; log: string }> {
  await applyObjects(kube, [{ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { restartPolicy: 'Never',
    securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'client', image: IMAGE, command: ['/usr/local/bin/node', '-e', script], resources: { limits: { memory: '96Mi' } },
      securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } } }] } }]);
  const phase = await waitFor(`client pod ${name} to finish`, async () => {
    const p = (await kube.core.readNamespacedPod({ name, namespace })).status?.phase;
    return p === 'Succeeded' || p === 'Failed' ? p : undefined;
  }, { timeoutMs: 180_000, intervalMs: 250 });
  const log = await kube.core.readNamespacedPodLog({ name, namespace, container: 'client' });
  return { phase, log };
}

/** What a failed real-node test prints: the pod's state, the node's conditions, the Service's endpoints and the containers' logs. */
export interface DiagnosisOf {
  readonly namespace: string;
  readonly pod: string;
  readonly service?: string;
  /** Folders whose kube-proxy and controller-manager logs to show the tail of. */
  readonly logDirs?: readonly string[];
}

export async function diagnosis(kube: Kube, of: DiagnosisOf): Promise<string> {
  const { namespace, pod: podName, service, logDirs = [] } = of;
  const lines: string[] = [];
  const pod = await kube.core.readNamespacedPod({ name: podName, namespace }).catch(() => undefined);
  lines.push(`pod ${namespace}/${podName}: phase ${pod?.status?.phase ?? 'gone'} ${pod?.status?.reason ?? ''} ${pod?.status?.message ?? ''}`);
  for (const c of pod?.status?.conditions ?? []) lines.push(`  condition ${c.type}=${c.status} ${c.reason ?? ''} ${String(c.lastTransitionTime ?? '')}`);
  for (const s of pod?.status?.containerStatuses ?? []) lines.push(`  container ${s.name}: ready=${String(s.ready)} restarts=${s.restartCount} state=${JSON.stringify(s.state)} last=${JSON.stringify(s.lastState)}`);
  for (const node of (await kube.core.listNode()).items) {
    const pressure = (node.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type);
    lines.push(`node ${node.metadata?.name ?? ''}: ${pressure.join(',')} taints=${JSON.stringify(node.spec?.taints ?? [])}`);
  }
  if (service !== undefined) {
    const slices = await kube.kc.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({ namespace, labelSelector: `kubernetes.io/service-name=${service}` }).catch(() => undefined);
    for (const e of slices?.items.flatMap((s) => s.endpoints ?? []) ?? []) lines.push(`  endpoint ${e.addresses.join(',')} ${JSON.stringify(e.conditions)}`);
  }
  if (service !== undefined) {
    // what kube-proxy programmed for the Service: its endpoints (KUBE-SEP) or a "has no endpoints" REJECT
    for (const table of ['nat', 'filter']) {
      const rules = await run('iptables-save', ['-t', table]).then((r) => r.stdout, (err: unknown) => String(err));
      lines.push(...rules.split('\n').filter((l) => l.includes(`${namespace}/${service}`)).map((l) => `  iptables ${table}: ${l}`));
    }
    // the host's conntrack entries to the ClusterIP: a stale one (no DNAT, or to a gone endpoint) shows here
    const ip = (await kube.core.readNamespacedService({ name: service, namespace }).catch(() => undefined))?.spec?.clusterIP;
    if (ip !== undefined) {
      const entries = await run('conntrack', ['-L', '-d', ip]).then((r) => r.stdout, (err: unknown) => String(err));
      lines.push(...entries.split('\n').filter((l) => l.trim() !== '').slice(0, 20).map((l) => `  conntrack: ${l}`));
    }
  }
  for (const dir of logDirs) {
    for (const file of ['kube-proxy.log', 'kube-controller-manager.log']) {
      const text = await readFile(join(dir, file), 'utf8').catch(() => undefined);
      if (text !== undefined) lines.push(`--- ${join(dir, file)}`, ...text.split('\n').slice(-25));
    }
  }
  const events = await kube.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${podName}` }).catch(() => undefined);
  for (const e of events?.items ?? []) lines.push(`  event ${e.type ?? ''} ${e.reason ?? ''}: ${e.message ?? ''}`);
  // the kubelet writes container logs here (its default podLogsDir)
  const dir = `/var/log/pods/${namespace}_${podName}_${pod?.metadata?.uid ?? ''}`;
  for (const container of await readdir(dir).catch(() => [] as string[])) {
    for (const file of (await readdir(join(dir, container)).catch(() => [] as string[])).sort()) {
      const text = await readFile(join(dir, container, file), 'utf8').catch(() => '');
      lines.push(`--- ${container}/${file}`, ...text.split('\n').slice(-40));
    }
  }
  return lines.join('\n');
}
