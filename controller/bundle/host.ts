// The shared per-node deviceShifu host's own objects (pure): a Deployment pinned to its node, and a
// ServiceAccount whose one Role lets it find the Services labelled for it. What it may do for each
// device it serves comes with the device (bundle/shared.ts), so adding a device changes nothing
// here: the host's Pod is never restarted for one.
import type { V1Deployment, V1Role, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import { HOST_ADMIN_PORT, HOST_APP_NAME, LABEL_HOST, hostId, hostObjectName } from '../../shared/node-host.ts';
import type { BundleSettings } from './deployment.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from './names.ts';
import { DEVICE_SHIFU_NODE_FLAGS } from './node-flags.ts';

/** The host's old-generation cap, MB (deviceshifu/README.md, "Shared per-node host", Figures). */
export const HOST_OLD_SPACE_MB = 48;

/**
 * The host's NODE_FLAGS unless the controller's setting replaces them: deviceShifu's own
 * (bundle/node-flags.ts) with a larger old-generation cap. Without a cap V8 let a loaded host's
 * heap grow to ~170 MiB of working set, and in a 96Mi container V8's own limit is 259 MB: the
 * kubelet would OOM-kill it. 48 MB is about twice the live heap of a host of ~90 devices (~10 MB
 * plus ~0.16 MB per device) and keeps a loaded host near 55 MiB.
 */
export const HOST_NODE_FLAGS: readonly string[] = DEVICE_SHIFU_NODE_FLAGS.map((f) => f.startsWith('--max-old-space-size=') ? `--max-old-space-size=${String(HOST_OLD_SPACE_MB)}` : f);

/** Every host object's labels; the pods' also select the devices' Services. */
export function hostLabels(node: string): Record<string, string> {
  return { 'app.kubernetes.io/name': HOST_APP_NAME, 'app.kubernetes.io/part-of': 'edgeshifu', [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_HOST]: hostId(node) };
}

/** What a device's Service selects: the host pod of the device's node. */
export function hostSelector(node: string): Record<string, string> {
  return { 'app.kubernetes.io/name': HOST_APP_NAME, [LABEL_HOST]: hostId(node) };
}

export function hostServiceAccount(node: string, namespace: string): V1ServiceAccount {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: hostObjectName(node), namespace, labels: hostLabels(node) } };
}

export function hostRole(node: string, namespace: string): V1Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role',
    metadata: { name: hostObjectName(node), namespace, labels: hostLabels(node) },
    // the assignment: the Services labelled for this host (a label selector is no RBAC limit, and
    // Services hold nothing secret); no get, no write
    rules: [{ apiGroups: [''], resources: ['services'], verbs: ['list', 'watch'] }],
  };
}

export function hostRoleBinding(node: string, namespace: string): V1RoleBinding {
  const name = hostObjectName(node);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding',
    metadata: { name, namespace, labels: hostLabels(node) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  };
}

export function hostDeployment(node: string, settings: BundleSettings): V1Deployment {
  const name = hostObjectName(node);
  const labels = hostLabels(node);
  const probe = { httpGet: { path: '/health', port: 'admin' }, periodSeconds: 10, timeoutSeconds: 2 };
  const env = [
    { name: 'EDGESHIFU_HOST_ID', value: hostId(node) },
    { name: 'EDGESHIFU_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'EDGESHIFU_BIND_ADDRESS', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    { name: 'NODE_FLAGS', value: (settings.nodeFlags !== undefined && settings.nodeFlags.length > 0 ? settings.nodeFlags : HOST_NODE_FLAGS).join(' ') },
  ];
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, namespace: settings.namespace, labels },
    spec: {
      replicas: 1,
      // a device's socket or serial line takes one connection: never two hosts of a node at once
      strategy: { type: 'Recreate' },
      selector: { matchLabels: hostSelector(node) },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: name,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } },
          ...(settings.tolerations === undefined || settings.tolerations.length === 0 ? {} : { tolerations: settings.tolerations.map((t) => ({ ...t })) }),
          containers: [{
            name: 'deviceshifu-host', image: settings.image, args: ['deviceshifu-host'],
            // each device's port (TCP, and UDP for LwM2M) is its Service's targetPort. Ports need not
            // be declared to be reached, and declaring them would change the Pod template, so a
            // device coming or going would restart the host and every device on it
            ports: [{ name: 'admin', containerPort: HOST_ADMIN_PORT }],
            env,
            resources: { requests: { cpu: settings.cpuRequest, memory: settings.memoryRequest }, limits: { cpu: settings.cpuLimit, memory: settings.memoryLimit } },
            livenessProbe: { ...probe, initialDelaySeconds: 5 },
            readinessProbe: probe,
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          }],
        },
      },
    },
  };
}
