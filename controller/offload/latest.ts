// Each object's last write by this process, kept until the cache shows it. A write guarded by the
// resourceVersion of a cached copy that lags this process's own write is refused (409) and has to
// be read and written again: the origin's OffloadRequest reports, one right after another (1.4
// conflicts per app over 300 apps), and a host's lease written over its own status write.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Informer } from '../../shared/kube/informer.ts';

export class LatestWrites<T extends KubernetesObject> {
  private readonly cache: Pick<Informer<T>, 'get'>;
  private readonly written = new Map<string, { over: string | undefined; object: T }>();

  constructor(cache: Pick<Informer<T>, 'get'>) {
    this.cache = cache;
  }

  /** The cached object, or this process's last write while the cache still shows the version that write replaced. */
  get(key: string): T | undefined {
    const cached = this.cache.get(key);
    const written = this.written.get(key);
    if (written !== undefined && cached !== undefined && cached.metadata?.resourceVersion === written.over) return written.object;
    this.written.delete(key);
    return cached;
  }

  /** `object` came back from a write over `over` (the version it was based on). */
  wrote(key: string, over: T, object: T): void {
    this.written.set(key, { over: over.metadata?.resourceVersion, object });
  }

  /** Drops what the cache has caught up with, or no longer holds (objects deleted since). */
  sweep(): void {
    for (const key of [...this.written.keys()]) this.get(key);
  }
}
