// One wrapper around every reconciler (controller-runtime's shape): workers take keys from the
// queue, a result asks for "again after", an error is retried with backoff unless it is a bad
// input that only its author can fix, panics are caught, and every pass is counted and timed.
import { randomUUID } from 'node:crypto';
import { Counter, Gauge, Histogram, Registry } from '../shared/prometheus.ts';
import { EdgeshifuError, errorMessage } from '../shared/errors.ts';
import { deferredChild, type Logger } from '../shared/log.ts';
import { WorkQueue } from './queue.ts';

export interface ReconcileResult {
  /** Reconcile this key again after this long (e.g. to recheck placement). */
  readonly requeueAfterMs?: number;
}

export type Reconcile = (key: string, log: Logger) => Promise<ReconcileResult>;

export interface RunnerOptions {
  readonly name: string;
  readonly reconcile: Reconcile;
  readonly workers: number;
  readonly logger: Logger;
  /** The controller's registry (shared/prometheus.ts). */
  readonly registry: Registry;
  readonly queue?: WorkQueue;
}

interface RunnerMetrics {
  readonly total: Counter<'controller' | 'result'>;
  readonly duration: Histogram<'controller'>;
  readonly depth: Gauge<'controller'>;
}

// every runner of a process shares one set of series, told apart by the controller label
const shared = new WeakMap<Registry, RunnerMetrics>();

function metricsFor(registry: Registry): RunnerMetrics {
  const existing = shared.get(registry);
  if (existing !== undefined) return existing;
  const registers = [registry];
  const metrics = {
    total: new Counter<'controller' | 'result'>({ name: 'edgeshifu_reconcile_total', help: 'Reconciles by controller and result (success, requeue, conflict, error, invalid)', labelNames: ['controller', 'result'], registers }),
    duration: new Histogram<'controller'>({ name: 'edgeshifu_reconcile_duration_seconds', help: 'Time per reconcile', labelNames: ['controller'], buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5], registers }),
    depth: new Gauge<'controller'>({ name: 'edgeshifu_workqueue_depth', help: 'Keys waiting per controller', labelNames: ['controller'], registers }),
  };
  shared.set(registry, metrics);
  return metrics;
}

export class Runner {
  readonly queue: WorkQueue;
  private readonly options: RunnerOptions;
  private readonly metrics: RunnerMetrics;
  private workers: Array<Promise<void>> = [];

  constructor(options: RunnerOptions) {
    this.options = options;
    this.queue = options.queue ?? new WorkQueue();
    this.metrics = metricsFor(options.registry);
  }

  start(): void {
    this.workers = Array.from({ length: this.options.workers }, () => this.work());
  }

  async stop(): Promise<void> {
    this.queue.shutdown();
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.metrics.depth.set({ controller: this.options.name }, this.queue.depth);
      try {
        await this.once(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async once(key: string): Promise<void> {
    const { name, logger } = this.options;
    const log = deferredChild(logger, { controller: name, key, reconcileId: randomUUID().slice(0, 8) });
    const started = performance.now();
    try {
      const result = await this.options.reconcile(key, log);
      this.queue.forget(key);
      if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      this.metrics.total.inc({ controller: name, result: result.requeueAfterMs === undefined ? 'success' : 'requeue' });
    } catch (err) {
      this.failed(key, err, log);
    } finally {
      this.metrics.duration.observe({ controller: name }, (performance.now() - started) / 1000);
    }
  }

  private failed(key: string, err: unknown, log: Logger): void {
    const name = this.options.name;
    if (err instanceof EdgeshifuError && err.kind === 'invalid') {
      // retrying cannot help: the reconciler has reported it in status; wait for a change
      this.queue.forget(key);
      this.metrics.total.inc({ controller: name, result: 'invalid' });
      log.warn({ err: err.message }, 'reconcile refused bad input');
      return;
    }
    const retryInMs = this.queue.addRateLimited(key);
    const message = errorMessage(err);
    if (err instanceof EdgeshifuError && err.kind === 'conflict') {
      // an optimistic-concurrency race (the object moved since the cache saw it) is expected with
      // several writers: retried against the newer version, it is not an error to page anyone on
      this.metrics.total.inc({ controller: name, result: 'conflict' });
      log.debug({ err: message, retryInMs }, 'write raced another; retrying');
      return;
    }
    this.metrics.total.inc({ controller: name, result: 'error' });
    log.error({ err: message, retryInMs, retries: this.queue.retries(key) }, 'reconcile failed');
  }
}
