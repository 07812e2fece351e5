// A device served by its node's shared host (pure): its Service `<device>` selects the host pod and
// targets the device's own port on it, and carries what the host needs (the ConfigMap's name, the
// node) as annotations. Its rights go to the host's ServiceAccount while it is there: the same Role
// in the device's namespace as a dedicated deviceShifu's, and reading its own ConfigMap by name.
import type { V1Role, V1RoleBinding, V1Service, V1ServicePort } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_MAP, ANNOTATION_HOST_NODE, LABEL_HOST, hostId, hostObjectName } from '../../shared/node-host.ts';
import { deviceShifuRole } from './access.ts';
import { LWM2M_PORT, type DeviceInput, type Placement } from './deployment.ts';
import { hostSelector } from './host.ts';
import { ANNOTATION_PLACED_AT, ANNOTATION_PLACEMENT_REASON, bundleLabels, bundleNames, type DeviceRef } from './names.ts';
import type { ServiceType } from './service.ts';

/** The Role and RoleBinding in the deviceShifu namespace that let the host read the device's ConfigMap. */
export function configAccessName(device: DeviceRef): string {
  // a dot cannot occur in a device name, so no device's own Role can bear this name
  return `${bundleNames(device).role}.config`;
}


export interface SharedDevice {
  readonly device: DeviceInput;
  readonly configMap: string;
  readonly placement: Placement;
  readonly port: number;
  readonly namespace: string;
  readonly serviceType: ServiceType;
}

/** A RoleBinding of the Role `name` in `namespace` to the host's ServiceAccount. */
function binding(name: string, namespace: string, s: SharedDevice): V1RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding',
    metadata: { name, namespace, labels: bundleLabels(s.device) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name: hostObjectName(s.placement.node), namespace: s.namespace }],
  };
}

export function sharedDeviceRoleBinding(s: SharedDevice): V1RoleBinding {
  return binding(bundleNames(s.device).role, s.device.namespace, s);
}

export function configAccessRole(s: SharedDevice): V1Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role',
    metadata: { name: configAccessName(s.device), namespace: s.namespace, labels: bundleLabels(s.device) },
    // list and watch with a metadata.name field selector, as resourceNames allow; no get, no write
    rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [s.configMap], verbs: ['list', 'watch'] }],
  };
}

export function configAccessRoleBinding(s: SharedDevice): V1RoleBinding {
  return binding(configAccessName(s.device), s.namespace, s);
}

/**
 * HTTP on port 80, and for an LwM2M device CoAP on 5683/UDP, both to the device's one port on the
 * host: the host's LwM2M server for the device listens on UDP at the number its HTTP side has on
 * TCP (deviceshifu/host/host.ts), so devices never share or swap a UDP port.
 */
function sharedPorts(s: SharedDevice): V1ServicePort[] {
  const ports: V1ServicePort[] = [{ name: 'http', port: 80, targetPort: s.port, protocol: 'TCP' }];
  if (s.device.spec.protocol === 'LwM2M') ports.push({ name: 'coap', port: LWM2M_PORT, targetPort: s.port, protocol: 'UDP' });
  return ports;
}

export function sharedDeviceService(s: SharedDevice): V1Service {
  const { device, placement } = s;
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: {
      name: bundleNames(device).service, namespace: s.namespace,
      labels: { ...bundleLabels(device), [LABEL_HOST]: hostId(placement.node) },
      annotations: {
        [ANNOTATION_HOST_NODE]: placement.node, [ANNOTATION_CONFIG_MAP]: s.configMap,
        [ANNOTATION_PLACED_AT]: placement.placedAt, [ANNOTATION_PLACEMENT_REASON]: placement.reason,
      },
    },
    spec: { type: s.serviceType, selector: hostSelector(placement.node), ports: sharedPorts(s) },
  };
}

/** Everything a shared device brings, in the order to apply it: rights before the Service the host follows. */
export function sharedDeviceObjects(s: SharedDevice): Array<V1Role | V1RoleBinding | V1Service> {
  return [deviceShifuRole(s.device), sharedDeviceRoleBinding(s), configAccessRole(s), configAccessRoleBinding(s), sharedDeviceService(s)];
}
