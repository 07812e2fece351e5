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
  /** When each delayed key is due; the heap below orders them, one timer waits for the first. */
  private readonly due = new Map<string, number>();
  private readonly delayed = new DueHeap();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
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
    const existing = this.due.get(key);
    if (existing !== undefined && existing <= at) return;
    // one timer for all delayed keys: a timer per key cost ~360 bytes each, and every device
    // waits for its periodic resync (footprint); a replaced entry is skipped when due
    this.due.set(key, at);
    this.delayed.push(at, key);
    this.arm();
  }

  /** Sets the timer for the first key due, if it is not set for that time already. */
  private arm(): void {
    const first = this.delayed.firstAt();
    if (first === undefined || first >= this.timerAt) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = first;
    this.timer = setTimeout(() => { this.fire(); }, Math.max(0, first - Date.now()));
    this.timer.unref();
  }

  /** Adds every key now due, then waits for the next. */
  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now();
    for (let first = this.delayed.firstAt(); first !== undefined && first <= now; first = this.delayed.firstAt()) {
      const key = this.delayed.pop();
      // an entry replaced by an earlier delay for the same key is stale
      if (this.due.get(key) !== first) continue;
      this.due.delete(key);
      this.add(key);
    }
    if (!this.closed) this.arm();
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
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.due.clear();
    this.delayed.clear();
    for (const taker of this.takers.splice(0)) taker(undefined);
  }

  private hand(key: string, taker: (key: string) => void): void {
    this.dirty.delete(key);
    this.processing.add(key);
    taker(key);
  }
}

/**
 * A binary min-heap of (time, key) in two parallel arrays: the times stay unboxed doubles, so an
 * entry costs two array slots rather than an object.
 */
class DueHeap {
  private readonly ats: number[] = [];
  private readonly keys: string[] = [];

  firstAt(): number | undefined {
    return this.ats[0];
  }

  push(at: number, key: string): void {
    this.ats.push(at);
    this.keys.push(key);
    let i = this.ats.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.at(parent) <= at) break;
      this.move(parent, i);
      i = parent;
    }
    this.ats[i] = at;
    this.keys[i] = key;
  }

  /** Removes and answers the first key; only called when firstAt() is defined. */
  pop(): string {
    const top = this.keys[0] ?? '';
    const lastAt = this.ats.pop() ?? 0;
    const lastKey = this.keys.pop() ?? '';
    const size = this.ats.length;
    if (size === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const child = left + 1 < size && this.at(left + 1) < this.at(left) ? left + 1 : left;
      if (this.at(child) >= lastAt) break;
      this.move(child, i);
      i = child;
    }
    this.ats[i] = lastAt;
    this.keys[i] = lastKey;
    return top;
  }

  clear(): void {
    this.ats.length = 0;
    this.keys.length = 0;
  }

  private at(i: number): number {
    return this.ats[i] ?? Infinity;
  }

  private move(from: number, to: number): void {
    this.ats[to] = this.at(from);
    this.keys[to] = this.keys[from] ?? '';
  }
}
