// The controller's view of the cluster: one informer per kind it reads, slimmed where the full
// objects would cost memory (pods), and the mapping from any change to the devices it concerns.
import type { KubernetesListObject, KubernetesObject, V1ConfigMap, V1Deployment, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { KubeClient, Query } from '../shared/kube/client.ts';
import { GROUP, VERSION, type CustomObject } from '../shared/crds/resources.ts';
import type { EdgeDeviceSpec, EdgeDeviceStatus } from '../shared/crds/edgedevice.ts';
import type { EdgeNodeSpec, EdgeNodeStatus } from '../shared/crds/edgenode.ts';
import { Informer } from '../shared/kube/informer.ts';
import type { Logger } from '../shared/log.ts';
import { ANNOTATION_PLACED_AT, ANNOTATION_PLACEMENT_REASON, LABEL_DEVICE, LABEL_DEVICE_NAMESPACE, LABEL_MANAGED_BY, MANAGED_BY } from './bundle/names.ts';
import { PodIndex } from './scheduling/pod-index.ts';

export type EdgeDevice = CustomObject<EdgeDeviceSpec, EdgeDeviceStatus>;
export type EdgeNode = CustomObject<EdgeNodeSpec, EdgeNodeStatus>;

const MANAGED = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;

/** A pod as the scheduler's arithmetic needs it: where, how much, and whether it is done. */
export function slimPod(pod: V1Pod): V1Pod {
  return {
    metadata: { name: pod.metadata?.name, namespace: pod.metadata?.namespace, resourceVersion: pod.metadata?.resourceVersion, labels: pod.metadata?.labels },
    spec: { nodeName: pod.spec?.nodeName, containers: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, resources: { requests: c.resources?.requests } })) },
    status: { phase: pod.status?.phase, conditions: pod.status?.conditions?.filter((c) => c.type === 'PodScheduled') },
  };
}

/** Only the named entries of a label or annotation map. */
function only(map: Readonly<Record<string, string>> | undefined, keys: readonly string[]): Record<string, string> | undefined {
  if (map === undefined) return undefined;
  const kept: Record<string, string> = {};
  for (const key of keys) if (map[key] !== undefined) kept[key] = map[key];
  return kept;
}

const OWNER_LABELS = [LABEL_DEVICE, LABEL_DEVICE_NAMESPACE];

/**
 * A deviceShifu Deployment as the reconciler reads it: its owner (labels), placement annotations,
 * generation (hand edits), node affinity (where it is pinned) and availability. The pod template's
 * containers, probes and defaults were four fifths of the object (issue 3, footprint).
 */
export function slimDeployment(deployment: V1Deployment): V1Deployment {
  const { metadata, spec, status } = deployment;
  return {
    metadata: { name: metadata?.name, namespace: metadata?.namespace, resourceVersion: metadata?.resourceVersion, generation: metadata?.generation,
      labels: only(metadata?.labels, OWNER_LABELS), annotations: only(metadata?.annotations, [ANNOTATION_PLACED_AT, ANNOTATION_PLACEMENT_REASON]) },
    spec: { selector: {}, template: { spec: { containers: [], affinity: spec?.template.spec?.affinity } } },
    status: { observedGeneration: status?.observedGeneration, availableReplicas: status?.availableReplicas },
  };
}

/** A Service as the reconciler reads it: its owner (labels) and what a hand edit would change. */
export function slimService(service: V1Service): V1Service {
  const { metadata, spec } = service;
  return {
    metadata: { name: metadata?.name, namespace: metadata?.namespace, resourceVersion: metadata?.resourceVersion, labels: only(metadata?.labels, OWNER_LABELS) },
    spec: { ports: spec?.ports, selector: spec?.selector, type: spec?.type },
  };
}

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
function slimConfigMap(cm: V1ConfigMap): V1ConfigMap {
  return { metadata: { name: cm.metadata?.name, namespace: cm.metadata?.namespace, resourceVersion: cm.metadata?.resourceVersion } };
}

/**
 * Objects per list page. A cluster's 10,000 pods would otherwise arrive as one ~70 MB body; and a
 * page this small is parsed, slimmed and dropped within V8's young generation instead of being
 * promoted (measured, 3,000 pods under the image's flags: peak RSS +7 MB at 50 per page, +16 MB
 * at 250, +62 MB in one list).
 */
export const LIST_PAGE = 50;

/**
 * Lists page by page (one consistent snapshot through the continue token), slimming each page
 * before the next is read, so the first list costs a page of full objects, not all of them.
 */
export async function pagedList<T extends KubernetesObject>(client: Pick<KubeClient, 'request'>, path: string, query: Query | undefined, transform: ((o: T) => T) | undefined): Promise<KubernetesListObject<T>> {
  const items: T[] = [];
  let token: string | undefined;
  for (;;) {
    const page = await client.request<KubernetesListObject<T>>('GET', path, { query: { ...query, limit: LIST_PAGE, continue: token } });
    for (const item of page.items) items.push(transform === undefined ? item : transform(item));
    token = (page.metadata as { continue?: string } | undefined)?.continue;
    if (token === undefined || token === '') return { ...page, items };
  }
}

/** An informer over a collection path, listing and watching with the same selectors. */
function informer<T extends KubernetesObject>(client: KubeClient, logger: Logger, path: string, options: { query?: Query; transform?: (o: T) => T } = {}): Informer<T> {
  const { labelSelector, fieldSelector } = (options.query ?? {}) as { labelSelector?: string; fieldSelector?: string };
  return new Informer<T>({
    path, logger, labelSelector, fieldSelector, transform: options.transform, watch: client.watch,
    list: () => pagedList(client, path, options.query, options.transform),
  });
}

export class World {
  readonly devices: Informer<EdgeDevice>;
  readonly edgeNodes: Informer<EdgeNode>;
  readonly nodes: Informer<V1Node>;
  readonly pods: Informer<V1Pod>;
  readonly deployments: Informer<V1Deployment>;
  readonly services: Informer<V1Service>;
  readonly configMaps: Informer<V1ConfigMap>;
  /** Requests per node and deviceShifu pods per device, following the pod informer. */
  readonly podIndex: PodIndex;

  constructor(client: KubeClient, deviceShifuNamespace: string, logger: Logger) {
    const ns = deviceShifuNamespace;
    const log = (kind: string): Logger => logger.child({ informer: kind });
    this.devices = informer<EdgeDevice>(client, log('EdgeDevice'), `/apis/${GROUP}/${VERSION}/edgedevices`);
    this.edgeNodes = informer<EdgeNode>(client, log('EdgeNode'), `/apis/${GROUP}/${VERSION}/edgenodes`);
    this.nodes = informer<V1Node>(client, log('Node'), '/api/v1/nodes', { transform: slimNode });
    this.pods = informer<V1Pod>(client, log('Pod'), '/api/v1/pods', { query: { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' }, transform: slimPod });
    this.deployments = informer<V1Deployment>(client, log('Deployment'), `/apis/apps/v1/namespaces/${ns}/deployments`, { query: { labelSelector: MANAGED }, transform: slimDeployment });
    this.services = informer<V1Service>(client, log('Service'), `/api/v1/namespaces/${ns}/services`, { transform: slimService });
    this.configMaps = informer<V1ConfigMap>(client, log('ConfigMap'), `/api/v1/namespaces/${ns}/configmaps`, { transform: slimConfigMap });
    // registered before any other handler, so whoever reacts to a pod event sees the index updated
    const index = new PodIndex(ns);
    this.podIndex = index;
    this.pods.on('add', (p) => { index.upsert(p); });
    this.pods.on('update', (p) => { index.upsert(p); });
    this.pods.on('delete', (p) => { index.remove(p); });
  }

  private all(): Array<Informer<KubernetesObject>> {
    return [this.devices, this.edgeNodes, this.nodes, this.pods, this.deployments, this.services, this.configMaps] as unknown as Array<Informer<KubernetesObject>>;
  }

  /** Resolves when every cache holds its first list. */
  async start(): Promise<void> {
    await Promise.all(this.all().map((i) => i.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((i) => i.stop()));
  }
}
