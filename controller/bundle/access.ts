// What a deviceShifu may do with the API: read its own EdgeDevice and write its status, and read
// the TelemetryServices of its device's namespace that its telemetries push to, nothing else
// (least privilege). A ServiceAccount in the deviceShifu namespace, and a Role +
// RoleBinding in the device's namespace, limited by resourceNames where the names are known (pure).
import type { V1Role, V1RoleBinding, V1ServiceAccount } from '@kubernetes/client-node';
import { GROUP } from '../../shared/crds/resources.ts';
import { bundleLabels, bundleNames, type DeviceRef } from './names.ts';

export function deviceShifuServiceAccount(device: DeviceRef, namespace: string): V1ServiceAccount {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: bundleNames(device).serviceAccount, namespace, labels: bundleLabels(device) } };
}

export function deviceShifuRole(device: DeviceRef): V1Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: bundleNames(device).role, namespace: device.namespace, labels: bundleLabels(device) },
    rules: [
      // list/watch with resourceNames work with a metadata.name field selector
      { apiGroups: [GROUP], resources: ['edgedevices'], resourceNames: [device.name], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [GROUP], resources: ['edgedevices/status'], resourceNames: [device.name], verbs: ['get', 'patch'] },
      // named by the ConfigMap's pushSettings, which the controller does not read: get by name only, no list
      { apiGroups: [GROUP], resources: ['telemetryservices'], verbs: ['get'] },
    ],
  };
}

export function deviceShifuRoleBinding(device: DeviceRef, serviceAccountNamespace: string): V1RoleBinding {
  const names = bundleNames(device);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: names.role, namespace: device.namespace, labels: bundleLabels(device) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: names.role },
    subjects: [{ kind: 'ServiceAccount', name: names.serviceAccount, namespace: serviceAccountNamespace }],
  };
}
