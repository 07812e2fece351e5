// At most one delivery per interval, the newest value winning: what keeps a device that floods
// notifications (OPC UA monitored items, LwM2M Observe) from flooding deviceShifu. Values replaced
// before delivery are counted as coalesced.
export class Throttle<T> {
  private lastAt = Number.NEGATIVE_INFINITY;
  private pending: T | undefined;
  private timer: NodeJS.Timeout | undefined;
  coalesced = 0;

  private readonly intervalMs: number;
  private readonly deliver: (value: T) => void;

  constructor(intervalMs: number, deliver: (value: T) => void) {
    this.intervalMs = intervalMs;
    this.deliver = deliver;
  }

  offer(value: T): void {
    const wait = this.lastAt + this.intervalMs - performance.now();
    if (wait <= 0 && this.timer === undefined) {
      this.lastAt = performance.now();
      this.deliver(value);
      return;
    }
    if (this.pending !== undefined) this.coalesced += 1;
    this.pending = value;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const next = this.pending;
      this.pending = undefined;
      if (next !== undefined) {
        this.lastAt = performance.now();
        this.deliver(next);
      }
    }, Math.max(0, wait));
  }

  stop(): void {
    clearTimeout(this.timer);
    this.pending = undefined;
  }
}
