// Writes the EdgeDevice phase only when it changes, and at most once per interval (Shifu writes
// every device every second with a full GET+PUT). A failed write is counted, logged and retried
// after the interval, never dropped.
import type { EdgeDevicePhase } from '../../shared/crds/edgedevice.ts';
import type { Logger } from '../../shared/log.ts';

export type PhasePatcher = (phase: EdgeDevicePhase) => Promise<void>;

export interface StatusWriterOptions {
  readonly patch: PhasePatcher;
  readonly minIntervalMs: number;
  readonly logger: Logger;
  readonly onWrite?: (result: 'ok' | 'error') => void;
  readonly clock?: () => number;
}

export class StatusWriter {
  private readonly options: StatusWriterOptions;
  private readonly clock: () => number;
  private desired: EdgeDevicePhase | undefined;
  private written: EdgeDevicePhase | undefined;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private writing = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(options: StatusWriterOptions) {
    this.options = options;
    this.clock = options.clock ?? Date.now;
  }

  /** The phase the API server holds (read from the EdgeDevice): no write is needed to reach it. */
  observed(phase: EdgeDevicePhase | undefined): void {
    if (!this.writing) this.written = phase;
    this.kick();
  }

  set(phase: EdgeDevicePhase): void {
    this.desired = phase;
    this.kick();
  }

  /** A write is under way or waiting for the interval. */
  get pending(): boolean {
    return this.writing || (this.desired !== undefined && this.desired !== this.written);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private kick(): void {
    if (this.stopped || this.writing || this.timer !== undefined || this.desired === undefined || this.desired === this.written) return;
    const wait = this.lastAttemptAt + this.options.minIntervalMs - this.clock();
    if (wait > 0) {
      this.timer = setTimeout(() => { this.timer = undefined; this.kick(); }, wait);
      return;
    }
    void this.write(this.desired);
  }

  private async write(phase: EdgeDevicePhase): Promise<void> {
    this.writing = true;
    this.lastAttemptAt = this.clock();
    try {
      await this.options.patch(phase);
      this.written = phase;
      this.options.onWrite?.('ok');
      this.options.logger.info({ phase }, 'EdgeDevice phase written');
    } catch (err) {
      this.options.onWrite?.('error');
      this.options.logger.warn({ phase, err: (err as Error).message }, 'writing the EdgeDevice phase failed; retrying after the interval');
    } finally {
      this.writing = false;
      this.kick();
    }
  }
}
