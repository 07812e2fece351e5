// edgeshifu installed on a real node as a user installs it: `kubectl apply -k` of the single-node
// overlay with the image built here (npm run image:build) imported into the node's containerd.
// The kubelet really runs every pod: the controller in-cluster with its ServiceAccount, Lease,
// probes and restricted security context; shifud reporting the node's own resources; a mock
// device from the same image; the deviceShifu the controller makes for its EdgeDevice, called
// through its Service's ClusterIP, and from a pod through its Service's DNS name (CoreDNS) with the
// device itself addressed by name; its status writes allowed by its Role, and nothing more. The
// restricted security context is read back from each running process (/proc), as runc applied it.
import test, { type ExecutionContext } from 'ava';
import { request } from 'node:https';
import { readFile } from 'node:fs/promises';
import { CoordinationV1Api, type V1Pod } from '@kubernetes/client-node';
import type { Kube } from '../support/cluster.ts';
import type { RealNodeCluster } from '../support/realnode/node.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { join } from 'node:path';
import { CLUSTER_DNS_IP } from '../support/realnode/coredns.ts';
import { candidateOf } from '../../controller/leader.ts';
import { addThermometers, applyKustomization, applyObjects, containerProcess, diagnosis, httpGet, readyPods, realNodeWithImage, REPO, runClientPod } from './support.ts';

let node: RealNodeCluster;
let kube: Kube;
const SYSTEM = 'edgeshifu-system';
const DEVICES = 'devices';

test.serial.before(async () => {
  ({ node, kube } = await realNodeWithImage());
});
test.after.always(async () => { await (node as RealNodeCluster | undefined)?.stop(); });

/** The restricted security context as runc applied it to the running process, not only as the spec asks. */
async function assertRestricted(t: ExecutionContext, pod: V1Pod | undefined, container: string): Promise<void> {
  const proc = await containerProcess(pod!, container);
  t.log(`${pod?.metadata?.name ?? '?'}/${container}: ${JSON.stringify(proc)}`);
  t.is(proc.uid, 65532, `${container} runs as the image's non-root user`);
  t.is(proc.capEff, '0000000000000000', `${container}: no effective capability`);
  t.is(proc.capBnd, '0000000000000000', `${container}: every capability dropped, none can be regained`);
  t.true(proc.noNewPrivs, `${container}: allowPrivilegeEscalation false (no_new_privs)`);
  t.true(proc.seccompFilter, `${container}: the RuntimeDefault seccomp filter`);
  t.true(proc.rootReadOnly, `${container}: read-only root filesystem`);
}

test.serial('the single-node overlay runs the controller in-cluster on the real node: Lease, probes, restricted security context', async (t) => {
  await applyKustomization(kube, join(REPO, 'manifests', 'overlays', 'single-node'));
  const [pod] = await readyPods(kube, SYSTEM, 'app.kubernetes.io/name=edgeshifu-controller');
  t.is(pod?.spec?.nodeName, node.nodeName);
  t.is(pod?.spec?.serviceAccountName, 'edgeshifu-controller');
  const status = pod?.status?.containerStatuses?.[0];
  t.true(status?.ready, 'the readiness probe passes (kubelet probes /readyz)');
  t.is(status?.restartCount, 0, 'the liveness probe never failed');
  t.true(status?.imageID !== undefined && status.imageID !== '', 'the kubelet ran the image built here');
  const security = pod?.spec?.containers[0]?.securityContext;
  t.is(security?.readOnlyRootFilesystem, true);
  t.deepEqual(security?.capabilities?.drop, ['ALL']);
  await assertRestricted(t, pod, 'controller');
  const lease = await waitFor('the controller to hold its Lease', async () => {
    const l = await kube.kc.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'edgeshifu-controller', namespace: SYSTEM });
    return candidateOf(l.spec?.holderIdentity ?? '') === pod?.metadata?.name ? l : undefined;
  }, { timeoutMs: 60_000 });
  // the holder is the pod's name and a suffix of this process (controller/leader.ts)
  t.regex(lease.spec?.holderIdentity ?? '', new RegExp(`^${pod?.metadata?.name ?? '?'}_[0-9a-f]{8}$`), 'in-cluster auth (token, CA, KUBERNETES_SERVICE_HOST) reached the API');
});

test.serial('shifud on the real node reports the node\'s own resources', async (t) => {
  const [pod] = await readyPods(kube, SYSTEM, 'app.kubernetes.io/name=shifud');
  t.is(pod?.spec?.nodeName, node.nodeName);
  await assertRestricted(t, pod, 'shifud');
  const kubeNode = await kube.core.readNode({ name: node.nodeName });
  const edgeNode = await waitFor('shifud to report the real node', async () => {
    const found = await kube.custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'edgenodes', name: node.nodeName }) as { status?: { capacity?: { cpu?: string; memory?: string }; lastHeartbeatTime?: string } };
    return found.status?.capacity?.memory !== undefined ? found : undefined;
  }, { timeoutMs: 120_000 });
  const memKi = (q: string): number => Number(/^(\d+)Ki$/.exec(q)?.[1] ?? NaN);
  const reported = edgeNode.status?.capacity?.memory ?? '';
  t.truthy(edgeNode.status?.lastHeartbeatTime);
  t.log(`EdgeNode capacity ${JSON.stringify(edgeNode.status?.capacity)}; Node capacity ${JSON.stringify(kubeNode.status?.capacity)}`);
  const nodeMem = memKi(kubeNode.status?.capacity?.memory ?? '');
  const parsed = /^(\d+)(Ki|Mi|Gi)?$/.exec(reported);
  const factor = { Ki: 1, Mi: 1024, Gi: 1024 * 1024 } as const;
  const reportedKi = parsed === null ? NaN : Number(parsed[1]) * (parsed[2] === undefined ? 1 / 1024 : factor[parsed[2] as keyof typeof factor]);
  t.true(Math.abs(reportedKi - nodeMem) / nodeMem < 0.05, `shifud's memory ${reported} is the host's (${kubeNode.status?.capacity?.memory})`);
});

/** The API as a pod's ServiceAccount sees it: a token from the TokenRequest API. */
async function asServiceAccount(account: { namespace: string; name: string }, method: string, path: string, body: unknown): Promise<number> {
  const token = (await kube.core.createNamespacedServiceAccountToken({ ...account, body: { spec: { audiences: [], expirationSeconds: 600 } } })).status?.token ?? '';
  const ca = await readFile(node.cluster.certificates.caCert);
  const url = new URL(node.cluster.server);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, ca, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

test.serial('a mock device pod, its EdgeDevice, and the deviceShifu the kubelet runs answer /read_value through the Service ClusterIP', async (t) => {
  await kube.core.createNamespace({ body: { metadata: { name: DEVICES } } });
  await addThermometers(kube, DEVICES, ['edgedevice-thermometer']);
  const [mock] = await readyPods(kube, DEVICES, 'app=thermometer-mock');
  t.is(mock?.spec?.nodeName, node.nodeName, 'the mock device runs as a pod from the same image');
  const [pod] = await readyPods(kube, 'deviceshifu', 'app=edgedevice-thermometer-deployment');
  t.is(pod?.spec?.nodeName, node.nodeName, 'the kubelet runs the deviceShifu');
  await assertRestricted(t, pod, 'deviceshifu');
  const service = await kube.core.readNamespacedService({ name: 'edgedevice-thermometer', namespace: 'deviceshifu' });
  const ip = service.spec?.clusterIP ?? '';
  const port = service.spec?.ports?.[0]?.port ?? 80;
  const answer = await waitFor('the deviceShifu to answer through its ClusterIP', async () => {
    const res = await httpGet(ip, port, '/read_value');
    if (res.status !== 200) throw new Error(`${res.status} ${res.body.slice(0, 300)}`);
    return res;
  }, { timeoutMs: 60_000 }).catch(async (err: unknown) => {
    t.log(await diagnosis(kube, { namespace: 'deviceshifu', pod: pod?.metadata?.name ?? '', service: 'edgedevice-thermometer', logDirs: [node.logDir, join(node.cluster.dir, 'logs')] }));
    if (mock !== undefined) t.log(await diagnosis(kube, { namespace: DEVICES, pod: mock.metadata?.name ?? '', service: 'thermometer' }));
    throw err;
  });
  const value = Number(answer.body.trim());
  t.true(value >= 10 && value <= 30, `the thermometer's reading, got ${answer.body}`);
});

// A client in a pod: resolves the deviceShifu Service's name through the kube-dns ClusterIP the
// kubelet wrote into its resolv.conf, then calls /read_value by that name.
const CLIENT = `
const { readFileSync } = require('node:fs');
const { lookup } = require('node:dns/promises');
const name = process.argv[1];
(async () => {
  const resolvConf = readFileSync('/etc/resolv.conf', 'utf8');
  const { address } = await lookup(name, { family: 4 });
  const res = await fetch('http://' + name + '/read_value');
  console.log(JSON.stringify({ resolvConf, address, status: res.status, body: await res.text() }));
})().catch((err) => { console.log(JSON.stringify({ error: String(err) })); process.exit(1); });`;

test.serial('an EdgeDevice addressed by a Service DNS name, called from a pod through its deviceShifu Service\'s DNS name', async (t) => {
  const dnsService = await kube.core.readNamespacedService({ name: 'kube-dns', namespace: 'kube-system' });
  t.is(dnsService.spec?.clusterIP, CLUSTER_DNS_IP, 'CoreDNS serves the cluster DNS address the kubelet hands to pods');
  await addThermometers(kube, DEVICES, ['thermometer-by-name'], 'dns');
  const device = await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: DEVICES, plural: 'edgedevices', name: 'thermometer-by-name' }) as { spec: { address: string } };
  t.is(device.spec.address, `thermometer.${DEVICES}.svc.cluster.local:11111`, 'the device is addressed by its Service\'s name, not an IP');
  await readyPods(kube, 'deviceshifu', 'app=thermometer-by-name-deployment');
  const service = await kube.core.readNamespacedService({ name: 'thermometer-by-name', namespace: 'deviceshifu' });
  const name = 'thermometer-by-name.deviceshifu.svc.cluster.local';
  const run = await waitFor('a pod to get the reading through the deviceShifu Service\'s DNS name', async () => {
    const attempt = `client-${Date.now()}`;
    const result = await runClientPod(kube, DEVICES, attempt, CLIENT.replace('process.argv[1]', JSON.stringify(name)));
    await kube.core.deleteNamespacedPod({ name: attempt, namespace: DEVICES });
    t.log(`${attempt}: ${result.phase} ${result.log.trim()}`);
    const answer = JSON.parse(result.log.trim().split('\n').at(-1) ?? '{}') as { resolvConf?: string; address?: string; status?: number; body?: string };
    return answer.status === 200 ? answer : undefined;
  }, { timeoutMs: 180_000, intervalMs: 1000 });
  t.regex(run.resolvConf ?? '', new RegExp(`^nameserver ${CLUSTER_DNS_IP.replaceAll('.', '\\.')}$`, 'm'), 'the pod resolves through CoreDNS');
  t.regex(run.resolvConf ?? '', /^search devices\.svc\.cluster\.local svc\.cluster\.local cluster\.local/m);
  t.is(run.address, service.spec?.clusterIP, 'the name is the deviceShifu Service\'s ClusterIP');
  const value = Number(run.body?.trim());
  t.true(value >= 10 && value <= 30, `the thermometer's reading through the deviceShifu, which reached the mock by name: got ${run.body ?? ''}`);
  await kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: DEVICES, plural: 'edgedevices', name: 'thermometer-by-name' });
});

test.serial('the deviceShifu writes its own EdgeDevice status under its Role, and its ServiceAccount may write nothing more', async (t) => {
  const device = await waitFor('the deviceShifu to write its EdgeDevice status', async () => {
    const d = await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: DEVICES, plural: 'edgedevices', name: 'edgedevice-thermometer' }) as { status?: { edgedevicephase?: string } };
    return d.status?.edgedevicephase === 'Running' ? d : undefined;
  }, { timeoutMs: 60_000 });
  t.is(device.status?.edgedevicephase, 'Running', 'only the deviceShifu judges a device Running (its telemetry poll answered)');
  const sa = { namespace: 'deviceshifu', name: 'deviceshifu-edgedevice-thermometer' };
  const own = `/apis/${GROUP}/${VERSION}/namespaces/${DEVICES}/edgedevices/edgedevice-thermometer/status`;
  t.is(await asServiceAccount(sa, 'PATCH', own, { status: { edgedevicephase: 'Running' } }), 200, 'its own status: allowed');
  await applyObjects(kube, [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name: 'other-device', namespace: DEVICES },
    spec: { sku: 'Thermometer', connection: 'Ethernet', protocol: 'HTTP', address: '10.96.0.250:11111' } }]);
  const other = `/apis/${GROUP}/${VERSION}/namespaces/${DEVICES}/edgedevices/other-device/status`;
  t.is(await asServiceAccount(sa, 'PATCH', other, { status: { edgedevicephase: 'Failed' } }), 403, 'another device\'s status: forbidden');
  t.is(await asServiceAccount(sa, 'PATCH', own.replace(/\/status$/, ''), { spec: { address: '10.0.0.1:1' } }), 403, 'its own spec: forbidden');
  await kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: DEVICES, plural: 'edgedevices', name: 'other-device' });
});

test.serial('deleting the EdgeDevice removes its deviceShifu pod and Service', async (t) => {
  await kube.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: DEVICES, plural: 'edgedevices', name: 'edgedevice-thermometer' });
  await waitFor('the deviceShifu pod and Service to go', async () => {
    const pods = await kube.core.listNamespacedPod({ namespace: 'deviceshifu', labelSelector: 'app=edgedevice-thermometer-deployment' });
    const services = await kube.core.listNamespacedService({ namespace: 'deviceshifu', fieldSelector: 'metadata.name=edgedevice-thermometer' });
    return pods.items.length === 0 && services.items.length === 0 ? true : undefined;
  }, { timeoutMs: 120_000 });
  t.pass();
});
