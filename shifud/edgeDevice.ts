// The EdgeDevice as shifud reads it, and its key in shifud's maps.
import type { EdgeDeviceSpec, EdgeDeviceStatus } from '../shared/crds/edgedevice.ts';
import type { CustomObject } from '../shared/crds/resources.ts';

export type EdgeDevice = CustomObject<EdgeDeviceSpec, EdgeDeviceStatus>;

export function deviceKey(device: EdgeDevice): string {
  return `${device.metadata.namespace ?? ''}/${device.metadata.name ?? ''}`;
}
