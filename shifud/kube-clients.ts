// The API calls shifud makes, behind narrow interfaces (STYLE habit 5): read and create its own
// EdgeNode, apply the EdgeNode's and EdgeDevices' status subresources, list EdgeDevices. All go
// through the small node:https KubeClient (client-node's import alone is ~86 MB of RSS against a
// 50 MB budget). Every failure becomes an EdgeshifuError (shared/kube/errors.ts) so callers decide
// in one place.
import type { KubernetesListObject } from '@kubernetes/client-node';
import { EDGE_DEVICE, EDGE_NODE, GROUP, VERSION } from '../shared/crds/resources.ts';
import type { KubeClient } from '../shared/kube/client.ts';
import { kubeStatusOf, toKubeError } from '../shared/kube/errors.ts';
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import type { EdgeDeviceStatusApply } from './device-status.ts';
import type { EdgeNode, EdgeNodeStatusApply } from './node-status.ts';

/**
 * Per-call deadline: across a network partition a call could otherwise hang and stall a loop.
 * Past this the call fails as a timeout and the gate backs off.
 */
export const CALL_TIMEOUT_MS = 10_000;
const APPLY = 'application/apply-patch+yaml';
const API = `/apis/${GROUP}/${VERSION}`;

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

const edgeNodePath = (name: string): string => `${API}/${EDGE_NODE.plural}/${encodeURIComponent(name)}`;

export class KubeEdgeNodeClient implements EdgeNodeClient {
  private readonly client: KubeClient;

  constructor(client: KubeClient) {
    this.client = client;
  }

  async get(name: string): Promise<EdgeNode | undefined> {
    try {
      return await this.client.request<EdgeNode>('GET', edgeNodePath(name), { timeoutMs: CALL_TIMEOUT_MS });
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return undefined;
      throw toKubeError(err, `read EdgeNode ${name}`);
    }
  }

  async create(node: EdgeNode): Promise<EdgeNode> {
    const name = node.metadata.name ?? '';
    try {
      return await this.client.request<EdgeNode>('POST', `${API}/${EDGE_NODE.plural}`, { body: node, timeoutMs: CALL_TIMEOUT_MS });
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
      return await this.client.request<EdgeNode>('PATCH', `${edgeNodePath(name)}/status`, {
        query: { fieldManager: NODE_FIELD_MANAGER, force: true }, contentType: APPLY, body, timeoutMs: CALL_TIMEOUT_MS,
      });
    } catch (err) {
      throw toKubeError(err, `apply EdgeNode ${name} status`);
    }
  }
}

export class KubeEdgeDeviceStatusWriter implements EdgeDeviceStatusWriter {
  private readonly client: KubeClient;
  private readonly fieldManager: string;

  constructor(client: KubeClient, nodeName: string) {
    this.client = client;
    this.fieldManager = deviceFieldManager(nodeName);
  }

  async applyStatus(body: EdgeDeviceStatusApply): Promise<void> {
    const { name = '', namespace = '' } = body.metadata;
    const path = `${API}/namespaces/${encodeURIComponent(namespace)}/${EDGE_DEVICE.plural}/${encodeURIComponent(name)}/status`;
    try {
      await this.client.request('PATCH', path, { query: { fieldManager: this.fieldManager, force: true }, contentType: APPLY, body, timeoutMs: CALL_TIMEOUT_MS });
    } catch (err) {
      throw toKubeError(err, `apply EdgeDevice ${namespace}/${name} status`);
    }
  }
}

/** Lists EdgeDevices in one namespace, or in all when namespace is ''. */
export function edgeDeviceLister(client: KubeClient, namespace: string): { path: string; list: () => Promise<KubernetesListObject<EdgeDevice>> } {
  const path = namespace === '' ? `${API}/${EDGE_DEVICE.plural}` : `${API}/namespaces/${encodeURIComponent(namespace)}/${EDGE_DEVICE.plural}`;
  return { path, list: () => client.request<KubernetesListObject<EdgeDevice>>('GET', path, { timeoutMs: CALL_TIMEOUT_MS }) };
}
