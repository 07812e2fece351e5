// Whether a device is served by a dedicated deviceShifu or by its node's shared host (pure): the
// EdgeDevice's annotation over the controller's default. Three kinds of device stay dedicated in
// any case: a Modbus RTU device (one process opens a serial port; the host would need every port
// of its node mounted, and a restart of all its devices for each port plugged in), a TCP device
// (its raw port is one per pod; two on one node would clash) and an MQTT device whose broker credentials come from a Secret (the kubelet hands them to a dedicated pod's
// environment; the host would need to read Secrets, which nothing of edgeshifu may).
import { ANNOTATION_MODE, type DeviceShifuMode } from '../../shared/node-host.ts';
import type { EdgeDevice } from '../world.ts';
import { rtuSerialPath } from '../../shared/crds/modbus-setting.ts';

export interface ModeDecision {
  readonly mode: DeviceShifuMode;
  /** Why a device asked to be shared is dedicated; undefined otherwise. */
  readonly kept?: string;
}

export function modeOf(device: EdgeDevice, clusterDefault: DeviceShifuMode): ModeDecision {
  const asked = device.metadata.annotations?.[ANNOTATION_MODE];
  const mode = asked === 'shared' || asked === 'dedicated' ? asked : clusterDefault;
  if (mode === 'dedicated') return { mode };
  const { spec } = device;
  // a serial port is opened by one process, and the kubelet mounts it into one pod of the node that has it
  if (rtuSerialPath(spec) !== undefined) return { mode: 'dedicated', kept: 'a Modbus RTU device has a serial port of its own: it keeps a dedicated deviceShifu' };
  if (spec.protocol === 'TCP') return { mode: 'dedicated', kept: 'a TCP device has a raw port of its own: it keeps a dedicated deviceShifu' };
  const secret = spec.protocolSettings?.MQTTSetting?.MQTTServerSecret;
  if (secret !== undefined && secret !== '') return { mode: 'dedicated', kept: 'an MQTT device with MQTTServerSecret keeps a dedicated deviceShifu (its credentials reach only that pod)' };
  return { mode };
}
