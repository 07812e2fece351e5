// The real-node bench's devices, one per protocol: the mock (`mockdevice <kind>` from the one image)
// as a Deployment and Service in namespace devices, and the ConfigMap and EdgeDevice a user would
// apply for it (the local stack's, test/support/localstack/devices.ts), the EdgeDevice addressing
// the mock by its Service's DNS name. The controller makes the deviceShifu `bench-<protocol>`.
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import { LOCAL_DEVICES, type LocalDevice } from '../test/support/localstack/devices.ts';
import { shifuExample } from '../test/support/shifu/index.ts';
import { IMAGE } from '../test/realnode/support.ts';
import { LWM2M_PORT } from '../controller/bundle/deployment.ts';

export interface BenchProtocol {
  /** `http`, `mqtt`, `opcua`, `modbus`, `lwm2m`: in names and in --protocols. */
  readonly id: string;
  readonly label: string;
  readonly device: LocalDevice;
  /** Above 1023: the mocks run as a non-root user without capabilities. */
  readonly port: number;
  /** spec.address for the mock's Service name and port; none for a device that calls deviceShifu (LwM2M). */
  readonly address?: (host: string, port: number) => string;
  /** The mock's Service, TCP readiness probe and address; an LwM2M client has none (it calls deviceShifu over UDP). */
  readonly serves: boolean;
  /** Extra environment for the mock's container. */
  readonly env?: readonly { name: string; value: string }[];
}

/**
 * An LwM2M device: Shifu's example EdgeDevice (endpoint leshan-client, no address: the client
 * registers with deviceShifu's LwM2M server) and a ConfigMap for the mock's temperature object.
 */
const LWM2M_DEVICE: LocalDevice = {
  mock: 'lwm2m', example: 'lwm2m', edgeDevice: 'edgedevice-lwm2m', configMap: 'lwm2m-configmap-0.0.1',
  data: {
    driverProperties: 'driverSku: LwM2M Device\ndriverImage:\n',
    instructions: 'instructions:\n  temperature:\n    protocolPropertyList:\n      ObjectId: /3303/0/5700\n'
      + '  observed_temperature:\n    protocolPropertyList:\n      ObjectId: /3303/0/5700\n      EnableObserve: "true"\n',
  },
  tryInstruction: 'temperature',
};

const local = (mock: string): LocalDevice => {
  const device = LOCAL_DEVICES.find((d) => d.mock === mock);
  if (device === undefined) throw new Error(`no local-stack device ${mock}`);
  return device;
};

export const BENCH_PROTOCOLS: readonly BenchProtocol[] = [
  { id: 'http', label: 'HTTP (thermometer)', device: local('thermometer'), port: 11111, serves: true, address: (h, p) => `${h}:${p}` },
  { id: 'mqtt', label: 'MQTT', device: local('mqtt'), port: 1883, serves: true, address: (h, p) => `${h}:${p}` },
  { id: 'opcua', label: 'OPC UA', device: local('opcua'), port: 4840, serves: true, address: (h, p) => `opc.tcp://${h}:${p}` },
  { id: 'modbus', label: 'Modbus TCP', device: local('modbus'), port: 5020, serves: true, address: (h, p) => `${h}:${p}` },
  // the client registers with its deviceShifu's Service by DNS name, CoAP on UDP through kube-proxy
  { id: 'lwm2m', label: 'LwM2M', device: LWM2M_DEVICE, port: 56830, serves: false,
    env: [{ name: 'EDGESHIFU_LWM2M_SERVER', value: `bench-lwm2m.deviceshifu.svc.cluster.local:${LWM2M_PORT}` }] },
];

export const deviceName = (p: BenchProtocol): string => `bench-${p.id}`;
const mockName = (p: BenchProtocol): string => `mock-${p.id}`;
/** Pod name prefixes, to find each container in the kubelet's summary. */
export const deviceShifuPodPrefix = (p: BenchProtocol): string => `${deviceName(p)}-deployment-`;
export const mockPodPrefix = (p: BenchProtocol): string => `${mockName(p)}-`;

function mock(p: BenchProtocol, namespace: string): object[] {
  const labels = { app: mockName(p) };
  return [
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: mockName(p), namespace },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [{ name: 'mock', image: IMAGE, args: ['mockdevice', p.device.mock],
          env: [{ name: 'MOCKDEVICE_PORT', value: String(p.port) }, { name: 'EDGESHIFU_BIND_ADDRESS', value: '0.0.0.0' }, ...(p.env ?? [])],
          ...(p.serves ? { ports: [{ containerPort: p.port }], readinessProbe: { tcpSocket: { port: p.port }, periodSeconds: 2 } } : {}),
          resources: { limits: { memory: '128Mi' } },
          // the OPC UA mock writes its PKI folder under /tmp; the root filesystem is read-only
          volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } } }],
        volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '16Mi' } }] } } } },
    ...(p.serves ? [{ apiVersion: 'v1', kind: 'Service', metadata: { name: mockName(p), namespace }, spec: { selector: labels, ports: [{ port: p.port, targetPort: p.port }] } }] : []),
  ];
}

/** The mock, the deviceShifu ConfigMap and the EdgeDevice `bench-<id>` for one protocol. */
export function protocolObjects(p: BenchProtocol, namespace: string): object[] {
  const { device } = p;
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: device.configMap, namespace: 'deviceshifu' }, data: device.data };
  const example = device.spec === undefined ? shifuExample(device.example).find((o) => o.metadata?.name === device.edgeDevice) as unknown as { spec: Record<string, unknown> } | undefined : undefined;
  const address = p.address?.(`${mockName(p)}.${namespace}.svc.cluster.local`, p.port);
  const spec = { ...(example?.spec ?? device.spec), ...(address === undefined ? {} : { address }), configMapName: device.configMap };
  const edgeDevice = { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name: deviceName(p), namespace }, spec };
  return [...mock(p, namespace), configMap, edgeDevice];
}

/** Picks protocols by id from a comma list ("all" for every one); a wrong id names the choices. */
export function pickProtocols(list: string): BenchProtocol[] {
  if (list === 'all') return [...BENCH_PROTOCOLS];
  return list.split(',').map((id) => {
    const found = BENCH_PROTOCOLS.find((p) => p.id === id.trim());
    if (found === undefined) throw new Error(`--protocols: no protocol "${id}"; choose from ${BENCH_PROTOCOLS.map((x) => x.id).join(', ')} or all`);
    return found;
  });
}
