// The cluster's DNS, as k3s ships it: CoreDNS (built by build.sh from its Go module) as a
// Deployment in kube-system behind the `kube-dns` Service at a fixed ClusterIP, which the kubelet
// writes into every pod's resolv.conf (clusterDNS). The image is the one static binary; it runs as
// a non-root user with no capabilities, binding port 53 because the pod lowers its own network
// namespace's unprivileged-port floor (a namespaced sysctl Kubernetes allows by default).
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { layerFromTree, writeOciArchive } from '../../../image/oci.ts';

/** build.sh's default; the binary in the cache is named after it. */
export const COREDNS_VERSION = 'v1.15.0';
export const COREDNS_BINARY = `coredns-${COREDNS_VERSION}`;
export const COREDNS_IMAGE = `edgeshifu.local/coredns:${COREDNS_VERSION}`;
/** The tenth address of the control plane's Service range (10.96.0.0/16), as kubeadm picks it. */
export const CLUSTER_DNS_IP = '10.96.0.10';
export const CLUSTER_DOMAIN = 'cluster.local';
const NAMESPACE = 'kube-system';
const LABELS = { 'k8s-app': 'kube-dns' };

export async function writeCorednsImage(binDir: string, archive: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'edgeshifu-coredns-'));
  try {
    await copyFile(join(binDir, COREDNS_BINARY), join(root, 'coredns'));
    await mkdir(dirname(archive), { recursive: true });
    await writeOciArchive(archive, { name: COREDNS_IMAGE, config: { Entrypoint: ['/coredns'], User: '65532:65532' }, layers: [await layerFromTree(root, `coredns ${COREDNS_VERSION} (static)`)] });
    return COREDNS_IMAGE;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The Corefile k3s installs, less its NodeHosts file and override imports: Service and pod names
 * from the API, everything else forwarded to the node's resolvers (none reachable here: outside
 * names fail, cluster names do not).
 */
const COREFILE = `.:53 {
    errors
    health :8080 {
        lameduck 5s
    }
    ready :8181
    kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf
    cache 30
    loop
    reload
    loadbalance
}
`;

/** ServiceAccount, read-only RBAC for the kubernetes plugin, Corefile, Deployment and the kube-dns Service. */
export function corednsObjects(): object[] {
  const meta = (name: string): object => ({ name, namespace: NAMESPACE, labels: LABELS });
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('coredns') },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:coredns', labels: LABELS }, rules: [
      { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    ] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'system:coredns', labels: LABELS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: NAMESPACE }] },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('coredns'), data: { Corefile: COREFILE } },
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('coredns'), spec: { replicas: 1, selector: { matchLabels: LABELS },
      template: { metadata: { labels: LABELS }, spec: {
        serviceAccountName: 'coredns', priorityClassName: 'system-cluster-critical',
        // its upstream is the node's resolv.conf, not itself
        dnsPolicy: 'Default',
        securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' },
          sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '53' }] },
        containers: [{ name: 'coredns', image: COREDNS_IMAGE, imagePullPolicy: 'Never', args: ['-conf', '/etc/coredns/Corefile'],
          ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' }, { name: 'metrics', containerPort: 9153, protocol: 'TCP' }],
          livenessProbe: { httpGet: { path: '/health', port: 8080 }, periodSeconds: 10, failureThreshold: 3 },
          readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 2 },
          resources: { requests: { cpu: '100m', memory: '70Mi' }, limits: { memory: '170Mi' } },
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }] }],
        volumes: [{ name: 'config', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } }],
      } } } },
    { apiVersion: 'v1', kind: 'Service', metadata: { ...meta('kube-dns'), annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' } },
      spec: { selector: LABELS, clusterIP: CLUSTER_DNS_IP, ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }, { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 }, { name: 'metrics', port: 9153, protocol: 'TCP' },
      ] } },
  ];
}
