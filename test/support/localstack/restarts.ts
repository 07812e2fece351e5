// Restarts a process that exits without being asked to, as the kubelet does for a Pod with
// restartPolicy Always: 10 s after the first crash, doubling up to 5 minutes, and back to 10 s
// once the process has stayed up for 10 minutes. The delays are the kubelet's own.
import type { Logger } from '../../../shared/log.ts';
import type { ManagedProcess } from '../controlplane/process.ts';

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Up this long, the next crash starts the backoff again. */
  readonly resetAfterMs: number;
}

export const KUBELET_BACKOFF: BackoffPolicy = { initialMs: 10_000, maxMs: 300_000, resetAfterMs: 600_000 };

/** The wait before the restart that follows `crashes` crashes in a row (1 for the first). */
export function restartDelayMs(policy: BackoffPolicy, crashes: number): number {
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, Math.min(crashes - 1, 30)));
}

/** Crashes in a row after a crash of a process that had been up `upMs`. */
export function crashesInARow(policy: BackoffPolicy, previous: number, upMs: number): number {
  return upMs >= policy.resetAfterMs ? 1 : previous + 1;
}

export class Restarting {
  private stopped = false;
  private crashes = 0;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  /** Restarts done so far (the kubelet's restartCount). */
  restarts = 0;

  readonly process: ManagedProcess;
  private readonly logger: Logger;
  private readonly policy: BackoffPolicy;

  constructor(process: ManagedProcess, logger: Logger, policy: BackoffPolicy = KUBELET_BACKOFF) {
    this.process = process;
    this.logger = logger;
    this.policy = policy;
  }

  start(): void {
    this.startedAt = Date.now();
    this.process.start();
    const exited = this.process.whenExited();
    void exited.then(() => { this.exited(); });
  }

  /** A restart is waiting out its backoff. */
  get scheduled(): boolean {
    return this.timer !== undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.process.stop();
  }

  private exited(): void {
    if (this.stopped) return;
    this.crashes = crashesInARow(this.policy, this.crashes, Date.now() - this.startedAt);
    const delayMs = restartDelayMs(this.policy, this.crashes);
    this.logger.warn({ process: this.process.spec.name, restartInMs: delayMs, crashes: this.crashes, log: this.process.tail(5) }, 'process exited: restarting it, as the kubelet would');
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.restarts += 1;
      this.start();
    }, delayMs);
  }
}
