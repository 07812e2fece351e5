// The controller's view of the cluster: one informer per kind it reads, each caching a compact
// record (records.ts) or a slimmed object, never the object as decoded (footprint).
import type { KubernetesListObject, KubernetesObject, V1ConfigMap, V1Deployment, V1ManagedFieldsEntry, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { KubeClient, Query } from '../shared/kube/client.ts';
import { GROUP, VERSION, type CustomObject } from '../shared/crds/resources.ts';
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import type { EdgeNodeSpec, EdgeNodeStatus } from '../shared/crds/edgenode.ts';
import { Informer } from '../shared/kube/informer.ts';
import type { Logger } from '../shared/log.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from './bundle/names.ts';
import { deploymentRecord, podRecord, serviceRecord, slimEdgeDevice, StringPool, versionOf, type DeploymentRecord, type PodRecord, type ServiceRecord } from './records.ts';
import { PodIndex } from './scheduling/pod-index.ts';

export type { EdgeDevice };
export type EdgeNode = CustomObject<EdgeNodeSpec, EdgeNodeStatus>;

const MANAGED = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;

/**
 * A Node as placement (and DRONE's resources and public address) read it: labels, cordon, taints,
 * allocatable, Ready, addresses. A real node's image list alone can be tens of kilobytes.
 */
export function slimNode(node: V1Node): V1Node {
  const { metadata, spec, status } = node;
  return {
    metadata: { name: metadata?.name, resourceVersion: metadata?.resourceVersion, labels: metadata?.labels },
    spec: { unschedulable: spec?.unschedulable, taints: spec?.taints },
    status: { allocatable: status?.allocatable, conditions: status?.conditions?.filter((c) => c.type === 'Ready'), addresses: status?.addresses },
  };
}

/** A ConfigMap's existence is all the controller needs of it. */
/** The key slimConfigMap keeps in `data` when the instructions name an MQTTTopic (the rest of data is dropped). */
export const HAS_MQTT_TOPIC = 'edgeshifu.hasMQTTTopic';

/** A non-empty `MQTTTopic:` anywhere in the instructions YAML (Shifu's protocolPropertyList). */
export function mentionsMqttTopic(instructions: string | undefined): boolean {
  return instructions !== undefined && /^\s*MQTTTopic\s*:\s*("[^"\s]|'[^'\s]|[^\s"'#])/m.test(instructions);
}

function slimConfigMap(cm: V1ConfigMap): V1ConfigMap {
  const slim: V1ConfigMap = { metadata: { name: cm.metadata?.name, namespace: cm.metadata?.namespace, resourceVersion: cm.metadata?.resourceVersion } };
  if (mentionsMqttTopic(cm.data?.instructions)) slim.data = { [HAS_MQTT_TOPIC]: 'true' };
  return slim;
}

/**
 * Objects per list page. A cluster's 10,000 pods would otherwise arrive as one ~70 MB body; and a
 * page this small is parsed, slimmed and dropped within V8's young generation instead of being
 * promoted (measured, 3,000 pods under the image's flags: peak RSS +7 MB at 50 per page, +16 MB
 * at 250, +62 MB in one list).
 */
export const LIST_PAGE = 50;

/**
 * Lists page by page (one consistent snapshot through the continue token), handing each object on
 * as its page arrives, so the first list costs a page of full objects, not all of them. Resolves
 * with the list's resourceVersion.
 */
export async function listEach(client: Pick<KubeClient, 'request'>, path: string, query: Query | undefined, each: (object: KubernetesObject) => void): Promise<string | undefined> {
  let token: string | undefined;
  for (;;) {
    const page = await client.request<KubernetesListObject<KubernetesObject>>('GET', path, { query: { ...query, limit: LIST_PAGE, continue: token } });
    for (const item of page.items) each(item);
    token = (page.metadata as { continue?: string } | undefined)?.continue;
    if (token === undefined || token === '') return page.metadata?.resourceVersion;
  }
}

interface Collection<T, C> {
  readonly path: string;
  readonly project: (object: T, key: string, managedFields?: readonly V1ManagedFieldsEntry[]) => C;
  readonly query?: Query;
  readonly versionOf?: (cached: C) => string | undefined;
}

/** An informer over a collection path, listing and watching with the same selectors, caching `project(object)`. */
function informer<T extends KubernetesObject, C>(client: KubeClient, logger: Logger, collection: Collection<T, C>): Informer<T, C> {
  const { path, project, query, versionOf } = collection;
  const { labelSelector, fieldSelector } = (query ?? {}) as { labelSelector?: string; fieldSelector?: string };
  return new Informer<T, C>({
    path, logger, labelSelector, fieldSelector, project, versionOf, watch: client.watch,
    // the list's items are the collection's kind
    listEach: (each) => listEach(client, path, query, (object) => { each(object as T); }),
  });
}

export class World {
  readonly devices: Informer<EdgeDevice>;
  readonly edgeNodes: Informer<EdgeNode>;
  readonly nodes: Informer<V1Node>;
  readonly pods: Informer<V1Pod, PodRecord>;
  readonly deployments: Informer<V1Deployment, DeploymentRecord>;
  readonly services: Informer<V1Service, ServiceRecord>;
  readonly configMaps: Informer<V1ConfigMap>;
  /** Node names, namespaces and the like, shared by every cache's records. */
  readonly strings = new StringPool();
  /** Requests per node and deviceShifu pods per device, following the pod informer. */
  readonly podIndex: PodIndex;
  private placementChanges = 0;

  constructor(client: KubeClient, deviceShifuNamespace: string, logger: Logger) {
    const ns = deviceShifuNamespace;
    const log = (kind: string): Logger => logger.child({ informer: kind });
    const pool = this.strings;
    this.devices = informer<EdgeDevice, EdgeDevice>(client, log('EdgeDevice'), { path: `/apis/${GROUP}/${VERSION}/edgedevices`, project: (d, key) => slimEdgeDevice(d, pool, key) });
    this.edgeNodes = informer<EdgeNode, EdgeNode>(client, log('EdgeNode'), { path: `/apis/${GROUP}/${VERSION}/edgenodes`, project: (n) => n });
    this.nodes = informer<V1Node, V1Node>(client, log('Node'), { path: '/api/v1/nodes', project: slimNode });
    this.pods = informer<V1Pod, PodRecord>(client, log('Pod'), { path: '/api/v1/pods', project: (p, key) => podRecord(p, ns, pool, key),
      query: { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' }, versionOf });
    this.deployments = informer<V1Deployment, DeploymentRecord>(client, log('Deployment'), { path: `/apis/apps/v1/namespaces/${ns}/deployments`,
      project: (d, _key, managed) => deploymentRecord(d, pool, managed), query: { labelSelector: MANAGED }, versionOf });
    this.services = informer<V1Service, ServiceRecord>(client, log('Service'), { path: `/api/v1/namespaces/${ns}/services`, project: (s, _key, managed) => serviceRecord(s, pool, managed), versionOf });
    this.configMaps = informer<V1ConfigMap, V1ConfigMap>(client, log('ConfigMap'), { path: `/api/v1/namespaces/${ns}/configmaps`, project: slimConfigMap });
    this.devices.on('delete', (_d, key) => { pool.deviceKeys.release(key); });
    // registered before any other handler, so whoever reacts to a pod event sees the index updated
    const index = new PodIndex();
    this.podIndex = index;
    this.pods.on('add', (p) => { index.upsert(p); });
    this.pods.on('update', (p, _key, previous) => { index.upsert(p, previous); });
    this.pods.on('delete', (_p, _key, previous) => { index.remove(previous); });
    for (const event of ['add', 'update', 'delete'] as const) {
      for (const cache of [this.nodes, this.edgeNodes, this.pods] as const) cache.on(event, () => { this.placementChanges += 1; });
    }
  }

  /** Moves on every event that can change what placement sees of the nodes (Node, EdgeNode, pod). */
  get placementVersion(): number {
    return this.placementChanges;
  }

  private all(): Array<Pick<Informer<KubernetesObject, unknown>, 'start' | 'stop'>> {
    return [this.devices, this.edgeNodes, this.nodes, this.pods, this.deployments, this.services, this.configMaps];
  }

  /** Resolves when every cache holds its first list. */
  async start(): Promise<void> {
    await Promise.all(this.all().map((i) => i.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((i) => i.stop()));
  }
}
