// The shared per-node deviceShifu host, as the controller and the host both name it: the label that
// says which host serves a device's Service, the annotations that carry what the host needs to serve
// it, and the host's own object names (pure).

/** On a device's Service and on the host's pods: the host (one per node) that serves the device. */
export const LABEL_HOST = 'shifu.edgenesis.io/deviceshifu-host';
/** On a device's Service: the node the host runs on (a node name may be longer than a label value). */
export const ANNOTATION_HOST_NODE = 'shifu.edgenesis.io/host-node';
/** On a device's Service: the ConfigMap (in the deviceShifu namespace) the host reads for the device. */
export const ANNOTATION_CONFIG_MAP = 'shifu.edgenesis.io/configmap';
/** On an EdgeDevice: `shared` or `dedicated`, over the controller's default. */
export const ANNOTATION_MODE = 'shifu.edgenesis.io/deviceshifu-mode';
export const HOST_APP_NAME = 'deviceshifu-host';
/** The host's own port (/health, /devices); each device gets a port of its own from HOST_FIRST_DEVICE_PORT up. */
export const HOST_ADMIN_PORT = 8080;
export const HOST_FIRST_DEVICE_PORT = 10000;
export const HOST_LAST_DEVICE_PORT = 29999;

export type DeviceShifuMode = 'dedicated' | 'shared';

/** FNV-1a, 32 bits, as 8 hex digits: a short stable suffix. */
function fnv(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * The host id of a node: its name when that fits a label value with room for the object names,
 * else a prefix and a hash. Node names are DNS subdomains (lower case, digits, '-', '.').
 */
export function hostId(node: string): string {
  if (node.length <= 40 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(node)) return node;
  const prefix = node.slice(0, 31).replace(/[^-a-z0-9.]/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return `${prefix === '' ? 'node' : prefix}-${fnv(node)}`;
}

/** Deployment, ServiceAccount, Role and RoleBinding of a node's host share this name. */
export function hostObjectName(node: string): string {
  return `deviceshifu-host-${hostId(node)}`;
}
