// Every write of the offloading workflow, behind one small interface over the controller's own
// client: server-side apply with the controller's field manager, create-if-absent, deletes that
// tolerate "already gone", and status/finalizer merge patches guarded by resourceVersion.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { kubeStatusOf, toKubeError } from '../../shared/kube/errors.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import { eventBody, FIELD_MANAGER } from '../kube-writer.ts';

const KINDS: Readonly<Record<string, { apiVersion: string; plural: string; namespaced: boolean }>> = {
  Namespace: { apiVersion: 'v1', plural: 'namespaces', namespaced: false },
  Service: { apiVersion: 'v1', plural: 'services', namespaced: true },
  Deployment: { apiVersion: 'apps/v1', plural: 'deployments', namespaced: true },
  EndpointSlice: { apiVersion: 'discovery.k8s.io/v1', plural: 'endpointslices', namespaced: true },
  ResourceQuota: { apiVersion: 'v1', plural: 'resourcequotas', namespaced: true },
  LimitRange: { apiVersion: 'v1', plural: 'limitranges', namespaced: true },
  NetworkPolicy: { apiVersion: 'networking.k8s.io/v1', plural: 'networkpolicies', namespaced: true },
  DroneFederatedDeployment: { apiVersion: API_VERSION, plural: 'dronefederateddeployments', namespaced: true },
  OffloadRequest: { apiVersion: API_VERSION, plural: 'offloadrequests', namespaced: true },
  HostRequest: { apiVersion: API_VERSION, plural: 'hostrequests', namespaced: true },
  Federation: { apiVersion: API_VERSION, plural: 'federations', namespaced: false },
};
export type OffloadKind = keyof typeof KINDS;

/** The collection path of a kind (all namespaces when `namespace` is undefined). */
export function collectionPath(kind: OffloadKind, namespace?: string): string {
  const k = KINDS[kind];
  if (k === undefined) throw new Error(`unknown kind ${kind}`);
  const root = k.apiVersion === 'v1' ? '/api/v1' : `/apis/${k.apiVersion}`;
  return k.namespaced && namespace !== undefined ? `${root}/namespaces/${encodeURIComponent(namespace)}/${k.plural}` : `${root}/${k.plural}`;
}

export function objectPath(kind: OffloadKind, namespace: string | undefined, name: string): string {
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
}

function describe(object: KubernetesObject): string {
  return `${object.kind ?? '?'} ${object.metadata?.namespace === undefined ? '' : `${object.metadata.namespace}/`}${object.metadata?.name ?? '?'}`;
}

const MERGE = 'application/merge-patch+json';

export class OffloadApi {
  readonly client: KubeClient;

  constructor(client: KubeClient) {
    this.client = client;
  }

  async apply<T extends KubernetesObject>(object: T): Promise<T> {
    const path = objectPath(object.kind ?? '', object.metadata?.namespace, object.metadata?.name ?? '');
    try {
      return await this.client.request<T>('PATCH', path, { query: { fieldManager: FIELD_MANAGER, force: true }, contentType: 'application/apply-patch+yaml', body: object });
    } catch (err) {
      throw toKubeError(err, `apply ${describe(object)}`);
    }
  }

  /** Creates the object unless it exists; returns it as created, or undefined when it existed. */
  async create<T extends KubernetesObject>(object: T): Promise<T | undefined> {
    try {
      return await this.client.request<T>('POST', collectionPath(object.kind ?? '', object.metadata?.namespace), { body: object });
    } catch (err) {
      if (kubeStatusOf(err)?.code === 409) return undefined;
      throw toKubeError(err, `create ${describe(object)}`);
    }
  }

  async get<T extends KubernetesObject>(kind: OffloadKind, namespace: string | undefined, name: string): Promise<T | undefined> {
    try {
      return await this.client.request<T>('GET', objectPath(kind, namespace, name));
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return undefined;
      throw toKubeError(err, `read ${kind} ${namespace ?? ''}/${name}`);
    }
  }

  async remove(kind: OffloadKind, namespace: string | undefined, name: string): Promise<void> {
    try {
      await this.client.request('DELETE', objectPath(kind, namespace, name), { query: { propagationPolicy: 'Background' } });
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return;
      throw toKubeError(err, `delete ${kind} ${namespace ?? ''}/${name}`);
    }
  }

  /** Merge-patches the status; a conflict if the object changed since it was read. */
  async patchStatus<T extends KubernetesObject>(kind: OffloadKind, object: T, status: unknown): Promise<T> {
    try {
      return await this.client.request<T>('PATCH', `${objectPath(kind, object.metadata?.namespace, object.metadata?.name ?? '')}/status`, {
        contentType: MERGE, body: { metadata: { resourceVersion: object.metadata?.resourceVersion }, status },
      });
    } catch (err) {
      throw toKubeError(err, `write status of ${kind} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`);
    }
  }

  async patch<T extends KubernetesObject>(kind: OffloadKind, object: T, patch: Record<string, unknown>): Promise<T> {
    try {
      return await this.client.request<T>('PATCH', objectPath(kind, object.metadata?.namespace, object.metadata?.name ?? ''), {
        contentType: MERGE, body: { ...patch, metadata: { ...(patch.metadata as Record<string, unknown> | undefined), resourceVersion: object.metadata?.resourceVersion } },
      });
    } catch (err) {
      throw toKubeError(err, `patch ${kind} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`);
    }
  }

  /** A Kubernetes Event on `object` (kubectl describe shows it). */
  async event(object: KubernetesObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    try {
      await this.client.request('POST', `/api/v1/namespaces/${encodeURIComponent(object.metadata?.namespace ?? '')}/events`, { body: eventBody(object, type, reason, message) });
    } catch (err) {
      throw toKubeError(err, `record event ${reason} on ${describe(object)}`);
    }
  }

  /**
   * A merge patch over the object as given, or, when that version is no longer current (409: the
   * cache lagged a write, often this controller's own status write), over the stored one. A lease
   * retried over the same stale cached version lost three times and waited for the next renewal round.
   */
  async patchLatest<T extends KubernetesObject>(kind: OffloadKind, object: T, patch: Record<string, unknown>): Promise<T> {
    try {
      return await this.patch(kind, object, patch);
    } catch (err) {
      if (!isEdgeshifuError(err, 'conflict')) throw err;
      const stored = await this.get<T>(kind, object.metadata?.namespace, object.metadata?.name ?? '');
      if (stored === undefined) throw err;
      return this.patch(kind, stored, patch);
    }
  }

  async setFinalizers<T extends KubernetesObject>(kind: OffloadKind, object: T, finalizers: string[]): Promise<T> {
    return this.patch(kind, object, { metadata: { finalizers } });
  }
}
