// The controller's view of the cluster: one informer per kind it reads, slimmed where the full
// objects would cost memory (pods), and the mapping from any change to the devices it concerns.
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig, type KubernetesListObject, type KubernetesObject,
  type V1ConfigMap, type V1Deployment, type V1Node, type V1Pod, type V1Service } from '@kubernetes/client-node';
import { GROUP, VERSION, type CustomObject } from '../shared/crds/resources.ts';
import type { EdgeDeviceSpec, EdgeDeviceStatus } from '../shared/crds/edgedevice.ts';
import type { EdgeNodeSpec, EdgeNodeStatus } from '../shared/crds/edgenode.ts';
import { Informer } from '../shared/kube/informer.ts';
import type { Logger } from '../shared/log.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from './bundle/names.ts';

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

/** A ConfigMap's existence is all the controller needs of it. */
function slimConfigMap(cm: V1ConfigMap): V1ConfigMap {
  return { metadata: { name: cm.metadata?.name, namespace: cm.metadata?.namespace, resourceVersion: cm.metadata?.resourceVersion } };
}

function asList<T extends KubernetesObject>(list: unknown): KubernetesListObject<T> {
  return list as KubernetesListObject<T>;
}

export class World {
  readonly devices: Informer<EdgeDevice>;
  readonly edgeNodes: Informer<EdgeNode>;
  readonly nodes: Informer<V1Node>;
  readonly pods: Informer<V1Pod>;
  readonly deployments: Informer<V1Deployment>;
  readonly services: Informer<V1Service>;
  readonly configMaps: Informer<V1ConfigMap>;

  constructor(kc: KubeConfig, deviceShifuNamespace: string, logger: Logger) {
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const ns = deviceShifuNamespace;
    const log = (kind: string): Logger => logger.child({ informer: kind });
    this.devices = new Informer<EdgeDevice>({ kc, logger: log('EdgeDevice'), path: `/apis/${GROUP}/${VERSION}/edgedevices`,
      list: async () => asList<EdgeDevice>(await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'edgedevices' })) });
    this.edgeNodes = new Informer<EdgeNode>({ kc, logger: log('EdgeNode'), path: `/apis/${GROUP}/${VERSION}/edgenodes`,
      list: async () => asList<EdgeNode>(await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'edgenodes' })) });
    this.nodes = new Informer<V1Node>({ kc, logger: log('Node'), path: '/api/v1/nodes', list: () => core.listNode() });
    const activePods = 'status.phase!=Succeeded,status.phase!=Failed';
    this.pods = new Informer<V1Pod>({ kc, logger: log('Pod'), path: '/api/v1/pods', fieldSelector: activePods, transform: slimPod,
      list: () => core.listPodForAllNamespaces({ fieldSelector: activePods }) });
    this.deployments = new Informer<V1Deployment>({ kc, logger: log('Deployment'), path: `/apis/apps/v1/namespaces/${ns}/deployments`, labelSelector: MANAGED,
      list: () => apps.listNamespacedDeployment({ namespace: ns, labelSelector: MANAGED }) });
    this.services = new Informer<V1Service>({ kc, logger: log('Service'), path: `/api/v1/namespaces/${ns}/services`,
      list: () => core.listNamespacedService({ namespace: ns }) });
    this.configMaps = new Informer<V1ConfigMap>({ kc, logger: log('ConfigMap'), path: `/api/v1/namespaces/${ns}/configmaps`, transform: slimConfigMap,
      list: () => core.listNamespacedConfigMap({ namespace: ns }) });
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
