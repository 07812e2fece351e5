// deviceShifu's own settings (not the device's ConfigMap): flags `--port 8080` or environment
// `EDGESHIFU_PORT=8080` (shared/config.ts). The EdgeDevice is named by Shifu's EDGEDEVICE_NAME and
// EDGEDEVICE_NAMESPACE, read in main.ts.
import { Type, type Static } from '@sinclair/typebox';

export const Settings = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'North-bound HTTP port (Shifu: 8080).' }),
  bindAddress: Type.String({ default: '127.0.0.1', description: 'Address to listen on; in a pod set it to the pod IP (downward API status.podIP).' }),
  configDir: Type.String({ default: '/etc/edgedevice/config', description: 'Mounted ConfigMap directory (one file per key).' }),
  edgedeviceFile: Type.Optional(Type.String({ description: 'Standalone mode: an EdgeDevice manifest instead of the Kubernetes API.' })),
  bodyLimitBytes: Type.Integer({ minimum: 0, default: 1_048_576, description: 'Largest request body accepted (413 above).' }),
  readyWindowMs: Type.Integer({ minimum: 1, default: 30_000, description: '/ready is 200 while the device answered within this window.' }),
  probeIntervalMs: Type.Integer({ minimum: 1, default: 10_000, description: 'Reachability probe period when nothing else showed the device alive.' }),
  statusIntervalMs: Type.Integer({ minimum: 0, default: 10_000, description: 'At most one EdgeDevice status write per interval.' }),
  tcpListenPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'Overrides TCPSetting.ListenPort.' })),
  lwm2mListenPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'LwM2M: UDP port the device registers at (default 5683, the CoAP port).' })),
  controlMsgsTimeoutMs: Type.Integer({ minimum: 0, default: 60_000, description: 'MQTT controlMsgs: a command holds the device (409) at most this long without its completion message (0 = until it arrives).' }),
  mqttCaFile: Type.Optional(Type.String({ description: 'CA bundle (PEM) for mqtts:// brokers.' })),
  opcuaCertificateDir: Type.String({ default: '/etc/edgedevice/certificate', description: 'OPC UA: where the ConfigMap or Secret with CertificateFileName and PrivateKeyFileName is mounted.' }),
  opcuaPkiDir: Type.Optional(Type.String({ description: 'OPC UA: writable directory for the client PKI (default: <tmpdir>/edgeshifu-opcua-pki).' })),
  telemetryServicesFile: Type.Optional(Type.String({ description: 'Standalone mode: TelemetryService manifests (multi-document YAML).' })),
  secretsDir: Type.Optional(Type.String({ description: 'Standalone mode: Secrets as <dir>/<name>/<key> files (e.g. MQTTServerSecret).' })),
  telemetryServiceCacheMs: Type.Integer({ minimum: 0, default: 30_000, description: 'Kubernetes mode: a TelemetryService read from the API is reused this long (0 = read at every push).' }),
  secretNamespace: Type.Optional(Type.String({ description: 'Namespace of Secrets named by the EdgeDevice (default: EDGEDEVICE_NAMESPACE).' })),
});
export type Settings = Static<typeof Settings>;
