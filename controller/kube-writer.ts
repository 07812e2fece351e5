// Every write the controller makes, behind one narrow interface: server-side
// apply with a fixed field manager, deletes that tolerate "already gone", status and finalizer
// patches guarded by resourceVersion, and Events.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../shared/kube/client.ts';
import { Counter, type Registry } from '../shared/prometheus.ts';
import { kubeStatusOf, toKubeError } from '../shared/kube/errors.ts';
import { GROUP, VERSION } from '../shared/crds/resources.ts';
import type { EdgeDeviceStatus } from '../shared/crds/edgedevice.ts';
import type { EdgeDevice } from './world.ts';
import { isoTime } from '../shared/time.ts';

export const FIELD_MANAGER = 'edgeshifu-controller';

/** A core/v1 Event on `object` from this controller, as `kubectl describe` shows it. */
export function eventBody(object: KubernetesObject, type: 'Normal' | 'Warning', reason: string, message: string): Record<string, unknown> {
  const { name = '', namespace = '', uid } = object.metadata ?? {};
  const now = isoTime(Date.now());
  return {
    metadata: { generateName: `${name}.` },
    involvedObject: { apiVersion: object.apiVersion, kind: object.kind, name, namespace, uid },
    type, reason, message, source: { component: FIELD_MANAGER },
    firstTimestamp: now, lastTimestamp: now, count: 1, reportingComponent: FIELD_MANAGER,
  };
}

export type BundleKind = 'Deployment' | 'Service' | 'ServiceAccount' | 'Role' | 'RoleBinding';

export interface KubeWriter {
  apply<T extends KubernetesObject>(object: T): Promise<T>;
  remove(kind: BundleKind, namespace: string, name: string): Promise<void>;
  /** Merge-patches the status; fails with a conflict if the device changed since `resourceVersion`. */
  patchStatus(device: EdgeDevice, status: EdgeDeviceStatus): Promise<EdgeDevice>;
  setFinalizers(device: EdgeDevice, finalizers: string[]): Promise<EdgeDevice>;
  event(device: EdgeDevice, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

const PATHS: Readonly<Record<BundleKind, string>> = {
  Deployment: '/apis/apps/v1/namespaces/{ns}/deployments',
  Service: '/api/v1/namespaces/{ns}/services',
  ServiceAccount: '/api/v1/namespaces/{ns}/serviceaccounts',
  Role: '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles',
  RoleBinding: '/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings',
};

function objectPath(kind: string | undefined, namespace: string, name: string): string {
  const collection = PATHS[kind as BundleKind] as string | undefined;
  if (collection === undefined) throw new Error(`no path for kind ${kind ?? '?'}`);
  return `${collection.replace('{ns}', encodeURIComponent(namespace))}/${encodeURIComponent(name)}`;
}

function devicePath(device: EdgeDevice): string {
  const { name = '', namespace = '' } = device.metadata;
  return `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/edgedevices/${encodeURIComponent(name)}`;
}

const MERGE = 'application/merge-patch+json';

type WriteVerb = 'apply' | 'delete' | 'status' | 'finalizers' | 'event';

export class ApiWriter implements KubeWriter {
  private readonly client: KubeClient;
  /** Writes sent, by verb and kind: the API server is what bounds a large roll-out (controller/README.md, Benchmark). */
  private readonly writes?: Counter<'verb' | 'kind'>;

  constructor(client: KubeClient, registry?: Registry) {
    this.client = client;
    if (registry !== undefined) {
      this.writes = new Counter({ name: 'edgeshifu_kube_writes_total', help: 'Writes sent to the API server by verb (apply, delete, status, finalizers, event) and kind', labelNames: ['verb', 'kind'], registers: [registry] });
    }
  }

  private count(verb: WriteVerb, kind: string): void {
    this.writes?.inc({ verb, kind });
  }

  async apply<T extends KubernetesObject>(object: T): Promise<T> {
    const { name = '', namespace = '' } = object.metadata ?? {};
    this.count('apply', object.kind ?? '?');
    try {
      return await this.client.request<T>('PATCH', objectPath(object.kind, namespace, name), {
        query: { fieldManager: FIELD_MANAGER, force: true }, contentType: 'application/apply-patch+yaml', body: object,
      });
    } catch (err) {
      throw toKubeError(err, `apply ${object.kind ?? '?'} ${namespace}/${name}`);
    }
  }

  async remove(kind: BundleKind, namespace: string, name: string): Promise<void> {
    this.count('delete', kind);
    try {
      await this.client.request('DELETE', objectPath(kind, namespace, name), { query: { propagationPolicy: 'Background' } });
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return;
      throw toKubeError(err, `delete ${kind} ${namespace}/${name}`);
    }
  }

  async patchStatus(device: EdgeDevice, status: EdgeDeviceStatus): Promise<EdgeDevice> {
    this.count('status', 'EdgeDevice');
    try {
      return await this.client.request<EdgeDevice>('PATCH', `${devicePath(device)}/status`, {
        contentType: MERGE, body: { metadata: { resourceVersion: device.metadata.resourceVersion }, status },
      });
    } catch (err) {
      throw toKubeError(err, `write status of EdgeDevice ${device.metadata.namespace ?? ''}/${device.metadata.name ?? ''}`);
    }
  }

  async setFinalizers(device: EdgeDevice, finalizers: string[]): Promise<EdgeDevice> {
    this.count('finalizers', 'EdgeDevice');
    try {
      return await this.client.request<EdgeDevice>('PATCH', devicePath(device), {
        contentType: MERGE, body: { metadata: { resourceVersion: device.metadata.resourceVersion, finalizers } },
      });
    } catch (err) {
      throw toKubeError(err, `set finalizers of EdgeDevice ${device.metadata.namespace ?? ''}/${device.metadata.name ?? ''}`);
    }
  }

  async event(device: EdgeDevice, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const { name = '', namespace = '' } = device.metadata;
    this.count('event', 'Event');
    try {
      await this.client.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, { body: eventBody({ ...device, kind: 'EdgeDevice' }, type, reason, message) });
    } catch (err) {
      throw toKubeError(err, `record event on EdgeDevice ${namespace}/${name}`);
    }
  }
}
