// The controller's configuration: flags, or EDGESHIFU_* environment variables (shared/config.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PROTOCOLS } from '../shared/crds/edgedevice.ts';
import { OffloadSettings } from './offload/settings.ts';
import { RearSettings } from './rear/settings.ts';

const DEFAULT_IMAGE = 'ghcr.io/edgeshifu/edgeshifu:0.1.0';

export const ControllerConfig = Type.Object({
  kubeconfig: Type.Optional(Type.String({ description: 'Kubeconfig file; in-cluster configuration when absent.' })),
  deviceShifuNamespace: Type.String({ default: 'deviceshifu', description: 'Where deviceShifu Deployments and Services live.' }),
  deviceShifuImage: Type.String({ default: DEFAULT_IMAGE, description: 'Image for every protocol unless overridden.' }),
  deviceShifuImages: Type.String({ default: '', description: `Per-protocol images: "MQTT=repo/img:tag,Socket=...". Protocols: ${PROTOCOLS.join(', ')}.` }),
  serviceType: Type.String({ enum: ['ClusterIP', 'NodePort', 'LoadBalancer'], default: 'ClusterIP', description: 'Type of each deviceShifu Service (LoadBalancer works on k3s with ServiceLB).' }),
  cpuRequest: Type.String({ default: '10m' }),
  memoryRequest: Type.String({ default: '32Mi' }),
  cpuLimit: Type.String({ default: '200m' }),
  memoryLimit: Type.String({ default: '96Mi', description: 'deviceShifu measured 61–73 MiB RSS in Kubernetes mode (npm run bench:deviceshifu -- --kube)' }),
  deviceShifuNodeFlags: Type.String({ default: '', description: 'NODE_FLAGS of every deviceShifu instead of its own "--max-semi-space-size=1 --max-old-space-size=24 --single-threaded --invocation-count-for-feedback-allocation=200 --expose-gc" (--expose-gc turns on the heap collection once a load ends); "--max-semi-space-size=1 --lite-mode" gives up about three quarters of the speed (deviceshifu/README.md). Tuning flags only.' }),
  deviceShifuMode: Type.String({ enum: ['dedicated', 'shared'], default: 'dedicated', description: 'dedicated: a deviceShifu Deployment per device (Shifu\'s way); shared: one host per node serves every device placed there (deviceshifu/README.md). An EdgeDevice\'s annotation shifu.edgenesis.io/deviceshifu-mode overrides it.' }),
  deviceShifuSerialGroup: Type.Integer({ minimum: 0, maximum: 2147483647, default: 20, description: 'Supplemental group of a Modbus RTU deviceShifu, so it may open its serial port without root: 20 is dialout on Debian and Ubuntu (owner of /dev/ttyS*, ttyUSB*, ttyACM*); set your distribution\'s.' }),
  deviceShifuSerialResource: Type.String({ default: '', description: 'An extended resource a device plugin offers for serial ports (e.g. one of a generic device plugin\'s), asked once by every Modbus RTU deviceShifu: the plugin\'s allocation lets the container open a USB adapter or on-board UART, which the runtime\'s default device list does not (controller/README.md, "Modbus RTU"). Empty: none asked.' }),
  nodeSelector: Type.String({ default: '', description: 'Label selector of the Nodes deviceShifu may run on; all Ready nodes when empty.' }),
  deviceShifuTolerations: Type.String({ default: '', description: 'Node taints deviceShifu tolerates, placement included: "key=value:NoSchedule,key:NoExecute,key,*" (no effect: all effects; * : every taint).' }),
  heartbeatStaleSeconds: Type.Integer({ minimum: 5, default: 120, description: 'An EdgeNode whose shifud heartbeat is older is treated as unavailable.' }),
  rescheduleCooldownSeconds: Type.Integer({ minimum: 0, default: 600, description: 'A deviceShifu moved for a better node stays put at least this long.' }),
  betterNodeMemoryRatio: Type.Number({ minimum: 1, default: 2, description: 'Move to a node only if it has this many times the free memory (hysteresis).' }),
  betterNodeDistanceKm: Type.Number({ minimum: 0, default: 1, description: 'Move to a closer node only if it is closer by more than this.' }),
  resyncSeconds: Type.Integer({ minimum: 1, default: 60, description: 'Every device is reconciled again this often (resource collection, rescheduling), each in a slot of the period of its own, so devices do not resync together.' }),
  workers: Type.Integer({ minimum: 1, maximum: 64, default: 4, description: 'Reconciles running at once.' }),
  listenAddress: Type.String({ default: '127.0.0.1', description: 'Address of the HTTP server (health, metrics, edgeMap); 0.0.0.0 in a pod.' }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  edgemapAuth: Type.Boolean({ default: false, description: 'Ask for a Kubernetes bearer token on the edgeMap and /metrics, checked with TokenReview and SubjectAccessReview (list edgedevices.shifu.edgenesis.io; get /metrics). Set it whenever the controller\'s HTTP is reachable from outside the cluster.' }),
  leaderElection: Type.Boolean({ default: true }),
  leaseNamespace: Type.String({ default: 'edgeshifu-system' }),
  leaseName: Type.String({ default: 'edgeshifu-controller' }),
  identity: Type.Optional(Type.String({ description: 'Leader-election candidate name, the pod name (HOSTNAME) by default; each process adds a random suffix to it.' })),
  // DRONE offloading: off unless --drone-cluster is set
  ...OffloadSettings.properties,
  // REAR: off unless --rear-domain is set (and DRONE is on)
  ...RearSettings.properties,
});
export type ControllerConfig = Static<typeof ControllerConfig>;

/** The image that serves a protocol: a per-protocol override, else the common image. */
export function imageFor(config: Pick<ControllerConfig, 'deviceShifuImage' | 'deviceShifuImages'>, protocol: string): string {
  for (const pair of config.deviceShifuImages.split(',')) {
    const [name, image] = pair.split('=').map((s) => s.trim());
    if (name === protocol && image) return image;
  }
  return config.deviceShifuImage;
}
