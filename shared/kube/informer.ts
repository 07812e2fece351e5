// A list-watch cache that does not give up. client-node's own informer stops on any error but
// 410, and its watch aborts after 30 s without data: here every drop, timeout,
// API server restart or expired resourceVersion leads back to a watch (or a relist) with backoff,
// until stop().
import type { KubeConfig, KubernetesListObject, KubernetesObject, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { Backoff, sleep } from '../backoff.ts';
import type { Logger } from '../log.ts';
import { errorMessage } from '../errors.ts';

export type InformerEvent = 'add' | 'update' | 'delete';

/** One watch connection: calls onEvent per event and resolves when the stream ends. */
export type WatchFn = (path: string, query: Record<string, string | number | boolean | undefined>,
  onEvent: (type: string, object: unknown) => void, signal: AbortSignal) => Promise<void>;

export interface InformerOptions<T extends KubernetesObject, C = T> {
  /** For client-node users: its Watch is loaded on start. Give `watch` instead to avoid client-node. */
  readonly kc?: KubeConfig;
  /** Collection path, e.g. `/apis/shifu.edgenesis.io/v1alpha1/namespaces/devices/edgedevices` or `/api/v1/nodes`. */
  readonly path: string;
  /** Lists the collection with the same selectors as below (e.g. () => custom.listNamespacedCustomObject({...})). */
  readonly list?: () => Promise<KubernetesListObject<T>>;
  /**
   * Instead of `list`: hands each listed object to `each` as it arrives (a paged list, page by
   * page) and resolves with the list's resourceVersion, so a large first list is never held whole.
   */
  readonly listEach?: (each: (object: T) => void) => Promise<string | undefined>;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly logger?: Logger;
  /**
   * Caches a compact record (or a slimmed copy) of each object instead of the object, as
   * client-go's SetTransform: the full object is dropped right after decode. Give it whenever C is
   * not T; handlers, list() and get() then see records. The record must keep the resourceVersion for `versionOf`, and may keep the key
   * it is given (the cache's own key string) instead of a copy (footprint).
   */
  readonly project?: (object: T, key: string, managedFields?: readonly V1ManagedFieldsEntry[]) => C;
  /** The resourceVersion of a cached record; by default `metadata.resourceVersion`. */
  readonly versionOf?: (cached: C) => string | undefined;
  /** How to open one watch (KubeClient.watch, or a fake for tests); client-node's with `kc`. */
  readonly watch?: WatchFn;
  readonly backoff?: Backoff;
}

class Expired extends Error {
  override readonly name = 'Expired';
}

/** A server-side timeout shorter than client-node's 30 s inactivity abort: quiet watches end cleanly. */
const WATCH_TIMEOUT_SECONDS = 25;

export function objectKey(object: KubernetesObject): string {
  const { namespace, name } = object.metadata ?? {};
  // join makes one flat string; a template literal makes a rope that a Map keeps beside its flattened copy
  return namespace ? [namespace, name ?? ''].join('/') : (name ?? '');
}

/** client-node's Watch, loaded only by the processes that use client-node anyway. */
async function clientNodeWatch(kc: KubeConfig): Promise<WatchFn> {
  const { Watch } = await import('@kubernetes/client-node');
  const watch = new Watch(kc);
  return async (path, query, onEvent, signal) => {
    await new Promise<void>((resolve, reject) => {
      const finish = (err: unknown): void => { if (err) reject(err instanceof Error ? err : new Error(JSON.stringify(err))); else resolve(); };
      watch.watch(path, query, (type, object) => { onEvent(type, object); }, finish)
        .then((controller) => { signal.addEventListener('abort', () => { controller.abort(); }, { once: true }); })
        .catch(finish);
    });
  };
}

/**
 * A handler hears the cached form (a record when projected), the object's key (`namespace/name`)
 * and, on update and delete, the form it replaces in the cache: an index kept beside the cache
 * takes back what the previous version added without holding a copy of its own.
 */
export type InformerHandler<C> = (object: C, key: string, previous?: C) => void;

export class Informer<T extends KubernetesObject, C = T> {
  private readonly options: InformerOptions<T, C>;
  private readonly cache = new Map<string, C>();
  private readonly handlers: Record<InformerEvent, Array<InformerHandler<C>>> = { add: [], update: [], delete: [] };
  private readonly backoff: Backoff;
  private watchFn: WatchFn | undefined;
  private readonly stopper = new AbortController();
  private resourceVersion = '';
  private loop: Promise<void> | undefined;
  /** Counters for metrics and tests: how often it listed, and how often a watch ended and was reopened. */
  readonly stats = { lists: 0, watches: 0, errors: 0 };

  constructor(options: InformerOptions<T, C>) {
    this.options = options;
    this.backoff = options.backoff ?? new Backoff();
    this.watchFn = options.watch;
    if (options.watch === undefined && options.kc === undefined) throw new Error('an Informer needs `watch` or `kc`');
    if (options.list === undefined && options.listEach === undefined) throw new Error('an Informer needs `list` or `listEach`');
  }

  on(event: InformerEvent, handler: InformerHandler<C>): void {
    this.handlers[event].push(handler);
  }

  /** Resolves once the first list is in the cache; then keeps watching until stop(). */
  async start(): Promise<void> {
    if (this.loop !== undefined) throw new Error('informer already started');
    if (this.watchFn === undefined && this.options.kc !== undefined) this.watchFn = await clientNodeWatch(this.options.kc);
    await this.relistUntilDone();
    this.loop = this.watchForever();
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.loop;
  }

  list(): C[] {
    return [...this.cache.values()];
  }

  /** Objects cached, without copying them out. */
  get size(): number {
    return this.cache.size;
  }

  /** Each cached object with its key, without copying the cache (10,000 records). */
  forEach(visit: (object: C, key: string) => void): void {
    // Map's own forEach makes no [key, value] pair per entry, as for...of does (a scan of 10,000
    // devices on every node event was ~0.8 MB of garbage under --lite-mode)
    this.cache.forEach(visit);
  }

  get(name: string, namespace?: string): C | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  private isStopped(): boolean {
    return this.stopper.signal.aborted;
  }

  private emit(event: InformerEvent, object: C, key: string, previous?: C): void {
    for (const handler of this.handlers[event]) {
      try {
        handler(object, key, previous);
      } catch (err) {
        this.options.logger?.error({ err, event, key }, 'informer handler threw');
      }
    }
  }

  private async relistUntilDone(): Promise<void> {
    while (!this.isStopped()) {
      try {
        await this.relist();
        this.backoff.reset();
        return;
      } catch (err) {
        await this.pause(err, 'list failed');
      }
    }
  }

  /** Replaces the cache with a fresh list, emitting what changed since the last one. */
  private async relist(): Promise<void> {
    const seen = new Set<string>();
    const each = (object: T): void => {
      const key = objectKey(object);
      seen.add(key);
      this.upsert(key, object);
    };
    let resourceVersion: string | undefined;
    if (this.options.listEach !== undefined) {
      resourceVersion = await this.options.listEach(each);
    } else if (this.options.list !== undefined) {
      const list = await this.options.list();
      for (const object of list.items) each(object);
      resourceVersion = list.metadata?.resourceVersion;
    }
    this.stats.lists += 1;
    for (const [key, object] of this.cache) {
      if (!seen.has(key)) {
        this.cache.delete(key);
        this.emit('delete', object, key, object);
      }
    }
    this.resourceVersion = resourceVersion ?? '';
  }

  private slim(received: T, key: string): C {
    // managedFields and kubectl's last-applied copy are often most of an object: no reader here needs them
    const metadata = received.metadata;
    // who wrote which fields: a projection may read it (the controller's records: a hand edit)
    const managedFields = metadata?.managedFields;
    if (metadata !== undefined) {
      delete metadata.managedFields;
      if (metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] !== undefined) {
        delete metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'];
      }
    }
    // without `project`, C is T (the options say to give it whenever they differ)
    return this.options.project ? this.options.project(received, key, managedFields) : received as unknown as C;
  }

  private versionOf(cached: C): string | undefined {
    return this.options.versionOf ? this.options.versionOf(cached) : (cached as KubernetesObject).metadata?.resourceVersion;
  }

  private upsert(key: string, received: T): void {
    const object = this.slim(received, key);
    const old = this.cache.get(key);
    this.cache.set(key, object);
    if (old === undefined) this.emit('add', object, key);
    else if (this.versionOf(old) !== this.versionOf(object)) this.emit('update', object, key, old);
  }

  private handleEvent(type: string, raw: unknown): void {
    const object = raw as T & { code?: number; metadata?: { resourceVersion?: string } };
    if (type === 'ERROR') {
      throw new Expired(`watch error ${String(object.code ?? '')}`);
    }
    const resourceVersion = object.metadata?.resourceVersion;
    if (resourceVersion !== undefined) this.resourceVersion = resourceVersion;
    if (type === 'BOOKMARK') return;
    const key = objectKey(object);
    if (type === 'DELETED') {
      const previous = this.cache.get(key);
      this.cache.delete(key);
      this.emit('delete', this.slim(object, key), key, previous);
    } else {
      this.upsert(key, object);
    }
  }

  private async watchOnce(): Promise<void> {
    const query = {
      resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: WATCH_TIMEOUT_SECONDS,
      labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector,
    };
    // this connection alone: ended on stop(), or at once when the server says the version expired
    const connection = new AbortController();
    const onStop = (): void => { connection.abort(); };
    this.stopper.signal.addEventListener('abort', onStop, { once: true });
    const outcome: { expired?: Expired } = {};
    const watch = this.watchFn;
    if (watch === undefined) throw new Error('informer not started');
    try {
      await watch(this.options.path, query, (type, object) => {
        if (outcome.expired !== undefined) return;
        try {
          this.handleEvent(type, object);
          this.backoff.reset();
        } catch (err) {
          if (!(err instanceof Expired)) throw err;
          outcome.expired = err;
          connection.abort();
        }
      }, connection.signal);
    } catch (err) {
      if (outcome.expired === undefined) throw err;
    } finally {
      this.stopper.signal.removeEventListener('abort', onStop);
    }
    if (outcome.expired !== undefined) throw outcome.expired;
  }

  private async watchForever(): Promise<void> {
    while (!this.isStopped()) {
      this.stats.watches += 1;
      try {
        await this.watchOnce();
      } catch (err) {
        if (this.isStopped()) return;
        if (err instanceof Expired || isGone(err)) {
          // the resourceVersion is too old: only a fresh list can tell what was missed (410 Gone)
          this.options.logger?.info({ path: this.options.path }, 'watch expired; relisting');
          await this.relistUntilDone();
        } else {
          await this.pause(err, 'watch failed');
        }
      }
    }
  }

  private async pause(err: unknown, what: string): Promise<void> {
    this.stats.errors += 1;
    const delay = this.backoff.next();
    this.options.logger?.warn({ path: this.options.path, err: errorMessage(err), retryInMs: delay }, what);
    await sleep(delay, this.stopper.signal);
  }
}

/** 410 Gone: client-node's errors carry statusCode, KubeClient's (KubeApiError) code. */
function isGone(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (('statusCode' in err && err.statusCode === 410) || ('code' in err && err.code === 410));
}
