// The peering's writes, over the controller's own client: server-side apply, create-if-absent,
// deletes that tolerate "already gone", status merge patches, and the Informer of one collection.
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../../../shared/kube/client.ts';
import { kubeStatusOf, toKubeError } from '../../../shared/kube/errors.ts';
import { Informer } from '../../../shared/kube/informer.ts';
import type { Logger } from '../../../shared/log.ts';
import { FIELD_MANAGER } from '../../kube-writer.ts';

const MERGE = 'application/merge-patch+json';

/** The path of an object, e.g. ('/api/v1', 'pods', 'ns', 'p') → /api/v1/namespaces/ns/pods/p. */
export function pathOf(root: string, plural: string, namespace: string | undefined, name?: string): string {
  const ns = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${root}${ns}/${plural}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
}

export function collectionInformer<T extends KubernetesObject>(client: KubeClient, logger: Logger, path: string, labelSelector?: string): Informer<T> {
  const query = labelSelector === undefined ? undefined : { labelSelector };
  return new Informer<T>({
    path, ...(labelSelector === undefined ? {} : { labelSelector }), logger: logger.child({ informer: path }), watch: client.watch,
    list: () => client.request<KubernetesListObject<T>>('GET', path, { query }),
  });
}

export class PeeringApi {
  readonly client: KubeClient;

  constructor(client: KubeClient) {
    this.client = client;
  }

  async apply<T extends KubernetesObject>(path: string, object: T): Promise<T> {
    try {
      return await this.client.request<T>('PATCH', path, { query: { fieldManager: FIELD_MANAGER, force: true }, contentType: 'application/apply-patch+yaml', body: object });
    } catch (err) {
      throw toKubeError(err, `apply ${path}`);
    }
  }

  /** Creates the object unless one of that name exists; returns whether it was created. */
  async create(collection: string, object: KubernetesObject): Promise<boolean> {
    try {
      await this.client.request('POST', collection, { body: object });
      return true;
    } catch (err) {
      if (kubeStatusOf(err)?.code === 409) return false;
      throw toKubeError(err, `create in ${collection}`);
    }
  }

  async get<T>(path: string): Promise<T | undefined> {
    try {
      return await this.client.request<T>('GET', path);
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return undefined;
      throw toKubeError(err, `get ${path}`);
    }
  }

  async remove(path: string, query: Record<string, string | number> = {}): Promise<void> {
    try {
      await this.client.request('DELETE', path, { query });
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return;
      throw toKubeError(err, `delete ${path}`);
    }
  }

  async merge<T>(path: string, body: unknown): Promise<T> {
    try {
      return await this.client.request<T>('PATCH', path, { contentType: MERGE, body });
    } catch (err) {
      throw toKubeError(err, `patch ${path}`);
    }
  }
}
