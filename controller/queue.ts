// A work queue of keys (controller-runtime's shape): a key waits at most once however often it is
// added, is never handed to two workers at once, and comes back after a failure with per-key
// exponential backoff. Pure of Kubernetes; time comes from timers the queue owns.
export interface QueueOptions {
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}

export class WorkQueue {
  private readonly waiting: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; at: number }>();
  private readonly takers: Array<(key: string | undefined) => void> = [];
  private closed = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(options: QueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 100;
    this.maxDelayMs = options.maxDelayMs ?? 300_000;
  }

  /** Keys waiting (not counting those being processed): the queue-depth metric. */
  get depth(): number {
    return this.waiting.length;
  }

  add(key: string): void {
    if (this.closed || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return; // done() puts it back
    const taker = this.takers.shift();
    if (taker !== undefined) this.hand(key, taker);
    else this.waiting.push(key);
  }

  /**
   * Adds the key after a delay; of two pending delays for the same key the earlier wins, so a
   * quick retry after an error is not held back by a long periodic requeue.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.closed) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const existing = this.timers.get(key);
    if (existing !== undefined) {
      if (existing.at <= at) return;
      clearTimeout(existing.timer);
    }
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { timer, at });
  }

  /** Adds the key after its own backoff, which doubles with each failure. */
  addRateLimited(key: string): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** failures);
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears the key's backoff after a success. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key, or undefined once the queue is shut down. */
  async get(): Promise<string | undefined> {
    const key = this.waiting.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return key;
    }
    if (this.closed) return undefined;
    return new Promise((resolve) => { this.takers.push(resolve); });
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  shutdown(): void {
    this.closed = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const taker of this.takers.splice(0)) taker(undefined);
  }

  private hand(key: string, taker: (key: string) => void): void {
    this.dirty.delete(key);
    this.processing.add(key);
    taker(key);
  }
}
