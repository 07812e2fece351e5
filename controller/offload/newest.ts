// Bus messages about one component are applied one at a time, and a message that a newer one
// replaced is never applied after it. Leases and host reports arrive faster than their writes
// finish; handled side by side, a lease retried after a write conflict landed after the lease
// that replaced it (launch: false over launch: true), and the component waited out the next
// renewal, 20 s (found by bench:offload).

export type ApplyNewest<M> = (message: M, superseded: () => boolean) => Promise<void>;

export class NewestPerKey<M> {
  private readonly waiting = new Map<string, M>();
  private readonly busy = new Set<string>();
  private readonly apply: ApplyNewest<M>;

  /** `apply` must not throw; `superseded()` turns true once a newer message for its key waits. */
  constructor(apply: ApplyNewest<M>) {
    this.apply = apply;
  }

  /** Queues the message for its key, replacing one that waits there still. */
  offer(key: string, message: M): void {
    this.waiting.set(key, message);
    if (!this.busy.has(key)) void this.drain(key);
  }

  /** Keys with a message being applied or waiting. */
  get pending(): number {
    return new Set([...this.busy, ...this.waiting.keys()]).size;
  }

  private async drain(key: string): Promise<void> {
    this.busy.add(key);
    try {
      for (let message = this.take(key); message !== undefined; message = this.take(key)) {
        await this.apply(message, () => this.waiting.has(key)).catch(() => undefined);
      }
    } finally {
      this.busy.delete(key);
    }
  }

  private take(key: string): M | undefined {
    const message = this.waiting.get(key);
    this.waiting.delete(key);
    return message;
  }
}
