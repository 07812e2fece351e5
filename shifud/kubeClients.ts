// The API calls shifud makes, behind narrow interfaces (STYLE habit 5): read and create its own
// EdgeNode, apply the EdgeNode's and EdgeDevices' status subresources, list EdgeDevices. Every
// failure becomes an EdgeshifuError (shared/kube/errors.ts) so callers decide in one place.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type KubernetesListObject } from '@kubernetes/client-node';
import { EDGE_DEVICE, EDGE_NODE, GROUP, VERSION } from '../shared/crds/resources.ts';
import { toKubeError } from '../shared/kube/errors.ts';
import { EdgeshifuError } from '../shared/errors.ts';
import type { EdgeDevice } from './edgeDevice.ts';
import type { EdgeDeviceStatusApply } from './deviceStatus.ts';
import type { EdgeNode, EdgeNodeStatusApply } from './nodeStatus.ts';

const APPLY = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
/**
 * client-node calls have no deadline: across a network partition one could hang for minutes and
 * stall a loop. Past this, the call counts as timed out (the gate backs off); the request itself
 * is left to end on its own.
 */
export const CALL_TIMEOUT_MS = 10_000;

async function withDeadline<T>(call: Promise<T>, action: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new EdgeshifuError('timeout', `${action}: no answer from the API server within ${CALL_TIMEOUT_MS} ms`)); }, CALL_TIMEOUT_MS);
  });
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
export const NODE_FIELD_MANAGER = 'shifud';

/** Each node applies EdgeDevice status as its own manager, so one node's apply never drops another's link. */
export function deviceFieldManager(nodeName: string): string {
  return `shifud-${nodeName}`.slice(0, 128);
}

export interface EdgeNodeClient {
  /** The EdgeNode, or undefined when there is none. */
  get(name: string): Promise<EdgeNode | undefined>;
  /** Creates it; an EdgeNode that already exists is returned as it is. */
  create(node: EdgeNode): Promise<EdgeNode>;
  applyStatus(body: EdgeNodeStatusApply): Promise<EdgeNode>;
}

export interface EdgeDeviceStatusWriter {
  applyStatus(body: EdgeDeviceStatusApply): Promise<void>;
}

export class KubeEdgeNodeClient implements EdgeNodeClient {
  private readonly custom: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  async get(name: string): Promise<EdgeNode | undefined> {
    try {
      return await withDeadline(this.custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural: EDGE_NODE.plural, name }), `read EdgeNode ${name}`) as EdgeNode;
    } catch (err) {
      const error = toKubeError(err, `read EdgeNode ${name}`);
      if (error.kind === 'not-found') return undefined;
      throw error;
    }
  }

  async create(node: EdgeNode): Promise<EdgeNode> {
    const name = node.metadata.name ?? '';
    try {
      return await withDeadline(this.custom.createClusterCustomObject({ group: GROUP, version: VERSION, plural: EDGE_NODE.plural, body: node }), `create EdgeNode ${name}`) as EdgeNode;
    } catch (err) {
      const error = toKubeError(err, `create EdgeNode ${name}`);
      if (error.kind !== 'conflict') throw error;
      const existing = await this.get(name);
      if (existing === undefined) throw error;
      return existing;
    }
  }

  async applyStatus(body: EdgeNodeStatusApply): Promise<EdgeNode> {
    const name = body.metadata.name ?? '';
    try {
      return await withDeadline(this.custom.patchClusterCustomObjectStatus({
        group: GROUP, version: VERSION, plural: EDGE_NODE.plural, name, body, fieldManager: NODE_FIELD_MANAGER, force: true,
      }, APPLY), `apply EdgeNode ${name} status`) as EdgeNode;
    } catch (err) {
      throw toKubeError(err, `apply EdgeNode ${name} status`);
    }
  }
}

export class KubeEdgeDeviceStatusWriter implements EdgeDeviceStatusWriter {
  private readonly custom: CustomObjectsApi;
  private readonly fieldManager: string;

  constructor(kc: KubeConfig, nodeName: string) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.fieldManager = deviceFieldManager(nodeName);
  }

  async applyStatus(body: EdgeDeviceStatusApply): Promise<void> {
    const { name = '', namespace = '' } = body.metadata;
    try {
      await withDeadline(this.custom.patchNamespacedCustomObjectStatus({
        group: GROUP, version: VERSION, plural: EDGE_DEVICE.plural, namespace, name, body, fieldManager: this.fieldManager, force: true,
      }, APPLY), `apply EdgeDevice ${namespace}/${name} status`);
    } catch (err) {
      throw toKubeError(err, `apply EdgeDevice ${namespace}/${name} status`);
    }
  }
}

/** Lists EdgeDevices in one namespace, or in all when namespace is ''. */
export function edgeDeviceLister(kc: KubeConfig, namespace: string): { path: string; list: () => Promise<KubernetesListObject<EdgeDevice>> } {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const base = { group: GROUP, version: VERSION, plural: EDGE_DEVICE.plural };
  return namespace === ''
    ? { path: `/apis/${GROUP}/${VERSION}/${EDGE_DEVICE.plural}`, list: async () => await custom.listClusterCustomObject(base) as KubernetesListObject<EdgeDevice> }
    : { path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${EDGE_DEVICE.plural}`, list: async () => await custom.listNamespacedCustomObject({ ...base, namespace }) as KubernetesListObject<EdgeDevice> };
}
