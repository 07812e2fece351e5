// The kubelet and kube-proxy of the real node, with certificates from the cluster's CA. Settings
// this host needs (each failed without it when tried on these machines):
// - cgroupDriver cgroupfs and failCgroupV1 false: no systemd, and a cgroup v1 hierarchy, which
//   recent kubelets refuse unless told otherwise; failSwapOn false;
// - the node's address on the host bridge (non-loopback, owned by the host): the API server
//   refuses to proxy to, or read stats/summary from, an address it does not allow;
// - anonymous access off: the API server presents its kubelet-client certificate instead.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { writeFile } from 'node:fs/promises';
import type { TestCluster } from '../controlplane/cluster.ts';
import { writeKubeconfig } from '../controlplane/kubeconfig.ts';
import { issue } from '../controlplane/pki.ts';
import { ManagedProcess } from '../controlplane/process.ts';
import { SOCKET } from './containerd.ts';
import { CLUSTER_DNS_IP, CLUSTER_DOMAIN } from './coredns.ts';
import { NETWORK } from './host.ts';

export interface NodeLayout {
  readonly dir: string;
  readonly binDir: string;
  readonly nodeName: string;
  readonly cluster: TestCluster;
  /** Outlive this Node process (`cluster:up --real-node`). */
  readonly detach: boolean;
  readonly ports: { readonly kubeletHealthz: number; readonly proxyHealthz: number; readonly proxyMetrics: number };
}

async function clientKubeconfig(layout: NodeLayout, who: string, subject: string): Promise<string> {
  const pki = layout.cluster.certificates;
  const out = { cert: join(layout.dir, 'pki', `${who}.crt`), key: join(layout.dir, 'pki', `${who}.key`) };
  await mkdir(join(layout.dir, 'pki'), { recursive: true, mode: 0o700 });
  await issue(pki, out, subject, 'extendedKeyUsage=clientAuth');
  const path = join(layout.dir, `${who}.kubeconfig`);
  await writeKubeconfig(path, { server: layout.cluster.server, caCert: pki.caCert, clientCert: out.cert, clientKey: out.key, contextName: who });
  return path;
}

export const KUBELET_ROOT = (dir: string): string => join(dir, 'kubelet');

export async function kubeletProcess(layout: NodeLayout): Promise<ManagedProcess> {
  const kubeconfig = await clientKubeconfig(layout, 'kubelet', `/O=system:nodes/CN=system:node:${layout.nodeName}`);
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration',
    address: NETWORK.gateway, port: 10250, readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1', healthzPort: layout.ports.kubeletHealthz,
    cgroupDriver: 'cgroupfs', failCgroupV1: false, failSwapOn: false,
    containerRuntimeEndpoint: `unix://${SOCKET}`,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: layout.cluster.certificates.caCert } },
    authorization: { mode: 'Webhook' },
    // CoreDNS's kube-dns Service (coredns.ts): every ClusterFirst pod resolves through it
    clusterDomain: CLUSTER_DOMAIN, clusterDNS: [CLUSTER_DNS_IP],
    serializeImagePulls: false,
    // images come from local archives: never collect them
    imageGCHighThresholdPercent: 100, imageGCLowThresholdPercent: 99,
    // The disk is the whole machine's, shared with whatever else runs on it: a share-of-disk
    // threshold would evict the tests' pods when something else fills it. An absolute floor
    // still stops the node before the disk is full.
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1Gi', 'imagefs.available': '1Gi', 'nodefs.inodesFree': '1%', 'imagefs.inodesFree': '1%' },
  };
  const configFile = join(layout.dir, 'kubelet.yaml');
  await writeFile(configFile, stringify(config));
  await mkdir(KUBELET_ROOT(layout.dir), { recursive: true });
  return new ManagedProcess({ name: 'kubelet', command: join(layout.binDir, 'kubelet'), logFile: join(layout.dir, 'logs', 'kubelet.log'), detach: layout.detach,
    args: [`--config=${configFile}`, `--kubeconfig=${kubeconfig}`, `--root-dir=${KUBELET_ROOT(layout.dir)}`,
      `--hostname-override=${layout.nodeName}`, `--node-ip=${NETWORK.gateway}`, '--v=1'] });
}

export async function kubeProxyConfig(layout: NodeLayout): Promise<string> {
  const kubeconfig = await clientKubeconfig(layout, 'kube-proxy', '/CN=system:kube-proxy');
  const config = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig }, mode: 'iptables', clusterCIDR: NETWORK.podCidr, hostnameOverride: layout.nodeName,
    bindAddress: NETWORK.gateway,
    healthzBindAddress: `127.0.0.1:${layout.ports.proxyHealthz}`, metricsBindAddress: `127.0.0.1:${layout.ports.proxyMetrics}`,
    // NodePorts only on the node's bridge address: nothing opens on the host's other interfaces
    nodePortAddresses: [`${NETWORK.gateway}/32`],
    // the conntrack table is the host's: leave its size alone
    conntrack: { maxPerCore: 0 },
  };
  const configFile = join(layout.dir, 'kube-proxy.yaml');
  await writeFile(configFile, stringify(config));
  return configFile;
}

export function kubeProxyProcess(layout: NodeLayout, configFile: string): ManagedProcess {
  return new ManagedProcess({ name: 'kube-proxy', command: join(layout.binDir, 'kube-proxy'), logFile: join(layout.dir, 'logs', 'kube-proxy.log'), detach: layout.detach,
    args: [`--config=${configFile}`, '--v=1'] });
}
