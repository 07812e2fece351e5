// Deterministic names and labels of a device's deviceShifu bundle (thermometer sample:
// Deployment `<device>-deployment` and Service `<device>` in namespace deviceshifu).
import { EdgeshifuError } from '../../shared/errors.ts';

export const MANAGED_BY = 'edgeshifu-controller';
export const LABEL_DEVICE = 'shifu.edgenesis.io/edgedevice';
export const LABEL_DEVICE_NAMESPACE = 'shifu.edgenesis.io/edgedevice-namespace';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
/** Set on the Deployment when its node was chosen: the cooldown of rescheduling reads it. */
export const ANNOTATION_PLACED_AT = 'shifu.edgenesis.io/placed-at';
export const ANNOTATION_PLACEMENT_REASON = 'shifu.edgenesis.io/placement-reason';
export const FINALIZER = 'shifu.edgenesis.io/deviceshifu-cleanup';
/**
 * Set by the controller on each Deployment and Service it applies: applied.ts's hash of what it
 * applied (base 36), so a restarted controller knows an unchanged object without writing it again.
 */
export const ANNOTATION_APPLIED = 'shifu.edgenesis.io/applied-hash';

export interface DeviceRef {
  readonly name: string;
  readonly namespace: string;
}

/** A device's key in queues and caches: namespace/name, as objectKey gives for its EdgeDevice. */
export function deviceKey(ref: DeviceRef): string {
  return [ref.namespace, ref.name].join('/');
}

export interface BundleNames {
  readonly deployment: string;
  readonly service: string;
  readonly serviceAccount: string;
  /** Role and RoleBinding in the device's own namespace. */
  readonly role: string;
}

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export function bundleNames(device: DeviceRef): BundleNames {
  // a Service name is a DNS-1035 label: the tightest of the names involved
  if (!DNS_LABEL.test(device.name) || device.name.length > 63) {
    throw new EdgeshifuError('invalid', `EdgeDevice name "${device.name}" cannot name its deviceShifu Service: use at most 63 lower-case letters, digits and '-', starting with a letter`);
  }
  return { deployment: `${device.name}-deployment`, service: device.name, serviceAccount: `deviceshifu-${device.name}`, role: `deviceshifu-${device.name}` };
}

export function bundleLabels(device: DeviceRef): Record<string, string> {
  return {
    app: `${device.name}-deployment`,
    'app.kubernetes.io/name': 'deviceshifu',
    'app.kubernetes.io/part-of': 'edgeshifu',
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_DEVICE]: device.name,
    [LABEL_DEVICE_NAMESPACE]: device.namespace,
  };
}

/** The labels that identify a bundle's pods: also the Deployment selector, which cannot change. */
export function selectorLabels(device: DeviceRef): Record<string, string> {
  return { app: `${device.name}-deployment`, [LABEL_DEVICE_NAMESPACE]: device.namespace };
}

/** The device a bundle object belongs to, from its labels. */
export function deviceOf(labels: Readonly<Record<string, string>> | undefined): DeviceRef | undefined {
  const name = labels?.[LABEL_DEVICE];
  const namespace = labels?.[LABEL_DEVICE_NAMESPACE];
  return name && namespace ? { name, namespace } : undefined;
}
