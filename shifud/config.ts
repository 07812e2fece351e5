// shifud's configuration: flags `--foo-bar` or env `EDGESHIFU_FOO_BAR` (shared/config.ts). Periods
// are in seconds (fractions allowed, so tests can run fast); every bound on probing is here.
import { Type, type Static } from '@sinclair/typebox';
import { loadConfig } from '../shared/config.ts';
import { EdgeshifuError } from '../shared/errors.ts';

const seconds = (def: number, description: string, minimum = 0.05): ReturnType<typeof Type.Number> =>
  Type.Number({ default: def, minimum, description });
const fraction = (def: number, description: string): ReturnType<typeof Type.Number> =>
  Type.Number({ default: def, minimum: 0, maximum: 1, description });

export const ShifudConfig = Type.Object({
  nodeName: Type.String({ minLength: 1, maxLength: 253, description: 'This node; NODE_NAME from the downward API when unset.' }),
  deviceNamespace: Type.String({ default: '', description: 'Namespace of the EdgeDevices to watch; empty = all.' }),
  kubeconfig: Type.Optional(Type.String({ description: 'Kubeconfig file; else $KUBECONFIG, else in-cluster, else ~/.kube/config.' })),
  logLevel: Type.String({ default: 'info' }),
  // node resources
  sampleIntervalSeconds: seconds(10, 'How often node resources are sampled (and published on MQTT).'),
  heartbeatSeconds: seconds(60, 'EdgeNode status is written at least this often.'),
  minWriteIntervalSeconds: seconds(30, 'EdgeNode status is written at most this often, whatever changes.', 0),
  cpuThreshold: fraction(0.1, 'Change of free CPU, as a fraction of capacity, worth a status write.'),
  memoryThreshold: fraction(0.05, 'Change of available memory, as a fraction of total, worth a status write.'),
  diskThreshold: fraction(0.05, 'Change of available disk, as a fraction of total, worth a status write.'),
  diskPath: Type.String({ default: '/', description: 'Filesystem whose size and free space are reported.' }),
  // devices
  probeIntervalSeconds: seconds(30, 'Each visible EdgeDevice is probed this often (jittered).'),
  probeJitter: fraction(0.2, 'Probe period varies by up to this fraction either way.'),
  probeTimeoutMs: Type.Integer({ default: 3000, minimum: 10, maximum: 60_000, description: 'Per-probe deadline.' }),
  probeConcurrency: Type.Integer({ default: 8, minimum: 1, maximum: 256, description: 'Probes in flight at once.' }),
  probeRatePerSecond: Type.Number({ default: 20, minimum: 0.1, description: 'Probes started per second, at most.' }),
  linkRefreshSeconds: seconds(600, 'An unchanged link has its lastSeenTime refreshed at most this often.'),
  usbIntervalSeconds: seconds(15, 'USB bus scan period, when some EdgeDevice declares USB identifiers.'),
  usbWatchPaths: Type.Array(Type.String(), { default: ['/dev/bus/usb'], description: 'Directories watched for USB plug and unplug (an immediate rescan); none = periodic scans only.' }),
  hostDevRoot: Type.String({ default: '', description: 'Where the node\'s /dev is mounted in shifud\'s pod (the DaemonSet: /host/dev), for Modbus RTU serial ports; empty: /dev itself.' }),
  // health
  healthAddress: Type.String({ default: '127.0.0.1', description: 'Address of /healthz, /readyz and /metrics (the DaemonSet probes 127.0.0.1 on the host network).' }),
  healthPort: Type.Integer({ default: 10361, minimum: 0, maximum: 65535, description: 'Port of /healthz, /readyz and /metrics; 0 picks a free one.' }),
  // MQTT
  mqttUrl: Type.Optional(Type.String({ description: 'Broker URL, e.g. mqtt://broker:1883; no broker when unset.' })),
  mqttUsername: Type.Optional(Type.String()),
  mqttPassword: Type.Optional(Type.String({ secret: true })),
  mqttTopicPrefix: Type.String({ default: 'edgeshifu/v1/nodes' }),
  // unattended discovery (optional): only these subnets and ports, never beyond
  discoverySubnets: Type.Array(Type.String(), { default: [], description: 'IPv4 CIDRs to scan for candidates, e.g. 192.168.1.0/24.' }),
  discoveryPorts: Type.Array(Type.String(), { default: [], description: 'TCP ports to try on each address of the subnets.' }),
  discoveryIntervalSeconds: seconds(3600, 'Period of the unattended scan.', 1),
  discoveryMaxAddresses: Type.Integer({ default: 1024, minimum: 1, maximum: 65_536, description: 'Largest scan accepted.' }),
  discoveryMdns: Type.Boolean({ default: false, description: 'Also browse mDNS (DNS-SD) on this node\'s interfaces inside discoverySubnets; answers outside them are dropped.' }),
  discoveryOpcua: Type.Array(Type.String(), { default: [], description: 'host:port of OPC UA servers to ask FindServers and GetEndpoints (recorded in the EdgeNode status); empty: off, and node-opcua is never loaded.' }),
  discoveryMdnsWindowMs: Type.Integer({ default: 3000, minimum: 100, maximum: 60_000, description: 'How long one mDNS browse listens for answers.' }),
});
export type ShifudConfig = Static<typeof ShifudConfig>;

/** Loads the configuration; the downward API's NODE_NAME fills nodeName when not given otherwise. */
export function loadShifudConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ShifudConfig {
  const withNode = env.EDGESHIFU_NODE_NAME === undefined && env.NODE_NAME !== undefined
    ? { ...env, EDGESHIFU_NODE_NAME: env.NODE_NAME } : env;
  if (withNode.EDGESHIFU_NODE_NAME === undefined && !argv.some((a) => a.startsWith('--node-name'))) {
    throw new EdgeshifuError('invalid', 'the node name is missing: set NODE_NAME from the downward API (fieldPath spec.nodeName), EDGESHIFU_NODE_NAME or --node-name');
  }
  return loadConfig(ShifudConfig, { argv, env: withNode });
}
