// The deviceShifu Deployment of one EdgeDevice (pure). Placement is a required node affinity on
// the node's name, so the real scheduler honours the controller's choice.
import type { V1Container, V1Deployment, V1EnvVar } from '@kubernetes/client-node';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import type { Toleration } from '../scheduling/taints.ts';
import { deviceShifuNodeFlags } from './node-flags.ts';
import { ANNOTATION_PLACED_AT, ANNOTATION_PLACEMENT_REASON, bundleLabels, bundleNames, selectorLabels, type DeviceRef } from './names.ts';
import { opcuaMounts } from './opcua-mounts.ts';
import { DEFAULT_SERIAL_GROUP, serialPortMount } from './serial-port.ts';

export const CONFIG_MOUNT_PATH = '/etc/edgedevice/config';
export const HTTP_PORT = 8080;
/** The CoAP port (RFC 7252) an LwM2M deviceShifu's server listens on (deviceshifu/drivers/lwm2m/settings.ts). */
export const LWM2M_PORT = 5683;

export interface BundleSettings {
  readonly namespace: string;
  readonly image: string;
  readonly cpuRequest: string;
  readonly memoryRequest: string;
  readonly cpuLimit: string;
  readonly memoryLimit: string;
  /** Node taints deviceShifu may run on (controller configuration); placement honours the same list. */
  readonly tolerations?: readonly Toleration[];
  /** NODE_FLAGS instead of deviceShifu's own (parseNodeFlags); absent or empty: deviceShifuNodeFlags(protocol). */
  readonly nodeFlags?: readonly string[];
  /** The supplemental group a Modbus RTU deviceShifu opens its serial port with (--device-shifu-serial-group). */
  readonly serialGroup?: number;
  /** An extended resource a device plugin offers for serial ports (--device-shifu-serial-resource): one is asked per RTU deviceShifu. */
  readonly serialResource?: string;
}

export interface Placement {
  readonly node: string;
  /** When the node was chosen (RFC 3339), kept across reconciles while the node stays. */
  readonly placedAt: string;
  readonly reason: string;
}

export interface DeviceInput extends DeviceRef {
  readonly spec: EdgeDeviceSpec;
}

function env(device: DeviceInput, settings: BundleSettings): V1EnvVar[] {
  const vars: V1EnvVar[] = [
    { name: 'EDGEDEVICE_NAME', value: device.name },
    { name: 'EDGEDEVICE_NAMESPACE', value: device.namespace },
    // deviceShifu binds 127.0.0.1 unless told: in a pod it serves on the pod's address
    { name: 'EDGESHIFU_BIND_ADDRESS', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  ];
  // deviceShifu's flags are its own, not the image's (which serve the other components)
  vars.push({ name: 'NODE_FLAGS', value: (settings.nodeFlags !== undefined && settings.nodeFlags.length > 0 ? settings.nodeFlags : deviceShifuNodeFlags(device.spec.protocol)).join(' ') });
  // Broker credentials reach the gateway through the kubelet, never through the gateway's own API access.
  const secret = device.spec.protocolSettings?.MQTTSetting?.MQTTServerSecret;
  if (secret !== undefined && secret !== '') {
    vars.push({ name: 'MQTT_USERNAME', valueFrom: { secretKeyRef: { name: secret, key: 'username', optional: true } } });
    vars.push({ name: 'MQTT_PASSWORD', valueFrom: { secretKeyRef: { name: secret, key: 'password', optional: true } } });
  }
  vars.push(...opcuaMounts(device.spec).env);
  return vars;
}

function tcpListenPort(spec: EdgeDeviceSpec): number | undefined {
  return spec.protocol === 'TCP' ? Number(spec.protocolSettings?.TCPSetting?.ListenPort ?? '8081') : undefined;
}

function resources(device: DeviceInput, settings: BundleSettings): V1Container['resources'] {
  // the device plugin's allocation adds the port to the container's device allow-list (controller/README.md, "Modbus RTU")
  const serial = settings.serialResource !== undefined && settings.serialResource !== '' && serialPortMount(device.spec, 0).volumes.length > 0
    ? { [settings.serialResource]: '1' } : {};
  return {
    requests: { cpu: settings.cpuRequest, memory: settings.memoryRequest, ...serial },
    limits: { cpu: settings.cpuLimit, memory: settings.memoryLimit, ...serial },
  };
}

function container(device: DeviceInput, settings: BundleSettings): V1Container {
  const listenPort = tcpListenPort(device.spec);
  const probe = { httpGet: { path: '/health', port: 'http' }, periodSeconds: 10, timeoutSeconds: 2 };
  return {
    name: 'deviceshifu',
    image: settings.image,
    args: ['deviceshifu'],
    ports: [
      { name: 'http', containerPort: HTTP_PORT }, ...(listenPort === undefined ? [] : [{ name: 'tcp', containerPort: listenPort }]),
      ...(device.spec.protocol === 'LwM2M' ? [{ name: 'coap', containerPort: LWM2M_PORT, protocol: 'UDP' }] : []),
    ],
    env: env(device, settings),
    volumeMounts: [
      { name: 'edgedevice-config', mountPath: CONFIG_MOUNT_PATH, readOnly: true }, ...opcuaMounts(device.spec).volumeMounts,
      ...serialPortMount(device.spec, serialGroup(settings)).volumeMounts,
    ],
    resources: resources(device, settings),
    livenessProbe: { ...probe, initialDelaySeconds: 5 },
    readinessProbe: probe,
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
  };
}

const serialGroup = (settings: BundleSettings): number => settings.serialGroup ?? DEFAULT_SERIAL_GROUP;

export function deviceShifuDeployment(device: DeviceInput, configMap: string, placement: Placement, settings: BundleSettings): V1Deployment {
  const names = bundleNames(device);
  const serial = serialPortMount(device.spec, serialGroup(settings));
  const labels = bundleLabels(device);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: names.deployment,
      namespace: settings.namespace,
      labels,
      annotations: { [ANNOTATION_PLACED_AT]: placement.placedAt, [ANNOTATION_PLACEMENT_REASON]: placement.reason },
    },
    spec: {
      replicas: 1,
      // one gateway per device at a time: a socket or serial device takes one connection
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selectorLabels(device) },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: names.serviceAccount,
          securityContext: {
            runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' },
            ...(serial.supplementalGroups.length === 0 ? {} : { supplementalGroups: serial.supplementalGroups }),
          },
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [placement.node] }] }],
              },
            },
          },
          ...(settings.tolerations === undefined || settings.tolerations.length === 0 ? {} : { tolerations: settings.tolerations.map((t) => ({ ...t })) }),
          containers: [container(device, settings)],
          volumes: [{ name: 'edgedevice-config', configMap: { name: configMap } }, ...opcuaMounts(device.spec).volumes, ...serial.volumes],
        },
      },
    },
  };
}

/** The node a Deployment built here is pinned to. */
export function placedNode(deployment: V1Deployment | undefined): string | undefined {
  const terms = deployment?.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return terms?.[0]?.matchFields?.find((f) => f.key === 'metadata.name')?.values?.[0];
}
