// The host's settings: deviceShifu's own, less what names one device (its port, ConfigMap
// directory, EdgeDevice file, TCP listen port), plus the host's id and namespace. Flags or
// EDGESHIFU_* variables (shared/config.ts), as for deviceShifu.
import { Type, type Static } from '@sinclair/typebox';
import { HOST_ADMIN_PORT } from '../../shared/node-host.ts';
import { Settings } from '../settings.ts';

const p = Settings.properties;

export const HostSettings = Type.Object({
  hostId: Type.Optional(Type.String({ minLength: 1, description: 'Kubernetes mode: this host\'s id; it serves the Services labelled shifu.edgenesis.io/deviceshifu-host=<id> (set by the controller).' })),
  devicesDir: Type.Optional(Type.String({ description: 'Without Kubernetes: one directory per device holding port, edgedevice.yaml and config/ (host/file-feed.ts).' })),
  secretsDir: p.secretsDir,
  namespace: Type.String({ default: 'deviceshifu', description: 'Namespace of the devices\' Services and ConfigMaps (the host\'s own).' }),
  adminPort: Type.Integer({ minimum: 0, maximum: 65535, default: HOST_ADMIN_PORT, description: 'The host\'s own port: /health and /devices.' }),
  bindAddress: p.bindAddress,
  bodyLimitBytes: p.bodyLimitBytes,
  readyWindowMs: p.readyWindowMs,
  probeIntervalMs: p.probeIntervalMs,
  statusIntervalMs: p.statusIntervalMs,
  controlMsgsTimeoutMs: p.controlMsgsTimeoutMs,
  mqttCaFile: p.mqttCaFile,
  telemetryServiceCacheMs: p.telemetryServiceCacheMs,
});
export type HostSettings = Static<typeof HostSettings>;
