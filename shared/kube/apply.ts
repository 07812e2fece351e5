// Server-side apply with a fixed field manager (REFERENCE.md §7: custom resources refuse
// strategic merge; apply works for every kind).
import { KubernetesObjectApi, PatchStrategy, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { toKubeError } from './errors.ts';

export interface ApplyOptions {
  readonly fieldManager: string;
  /** Validate and admit on the server without persisting. */
  readonly dryRun?: boolean;
  /** Take over fields another manager owns. */
  readonly force?: boolean;
}

export class Applier {
  private readonly objects: KubernetesObjectApi;

  constructor(kc: KubeConfig) {
    this.objects = KubernetesObjectApi.makeApiClient(kc);
  }

  async apply<T extends KubernetesObject>(object: T, options: ApplyOptions): Promise<T> {
    const name = `${object.kind ?? '?'} ${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata?.name ?? '?'}`;
    try {
      return await this.objects.patch(object, undefined, options.dryRun === true ? 'All' : undefined, options.fieldManager,
        options.force ?? true, PatchStrategy.ServerSideApply);
    } catch (err) {
      throw toKubeError(err, `apply ${name}`);
    }
  }
}
