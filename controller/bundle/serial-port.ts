// A Modbus RTU device's serial port in its deviceShifu pod (pure): the node's character device
// mounted at the same path (deviceShifu opens spec...serialPath as written), and a supplemental
// group that may open it, so the pod stays non-root and unprivileged (controller/README.md, "Modbus RTU").
import type { V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { rtuSerialPath } from '../../shared/crds/modbus-setting.ts';

/** Debian's and Ubuntu's dialout group, which owns /dev/ttyS*, /dev/ttyUSB* and /dev/ttyACM* (mode 0660). */
export const DEFAULT_SERIAL_GROUP = 20;

export interface SerialPortMount {
  readonly volumes: V1Volume[];
  readonly volumeMounts: V1VolumeMount[];
  readonly supplementalGroups: number[];
}

const NONE: SerialPortMount = { volumes: [], volumeMounts: [], supplementalGroups: [] };

export function serialPortMount(spec: EdgeDeviceSpec, group: number): SerialPortMount {
  const path = rtuSerialPath(spec);
  if (path === undefined) return NONE;
  return {
    // CharDevice: the kubelet refuses to start the pod when the path is missing or not a character device
    volumes: [{ name: 'serial-port', hostPath: { path, type: 'CharDevice' } }],
    volumeMounts: [{ name: 'serial-port', mountPath: path }],
    supplementalGroups: [group],
  };
}
