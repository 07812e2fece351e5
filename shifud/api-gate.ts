// One backoff for every write shifud makes: when the API server is away, writes stop until the
// backoff says to try again, and a single line is logged per outage, not one per write
// (it backs off and recovers, and never floods the API).
import { Backoff } from '../shared/backoff.ts';
import { toKubeError } from '../shared/kube/errors.ts';
import type { EdgeshifuError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';

export class ApiGate {
  private readonly backoff: Backoff;
  private readonly now: () => number;
  private readonly logger: Logger;
  private closedUntil = 0;
  private outageSince: number | undefined;
  /** Writes refused while closed: for metrics and tests. */
  readonly stats = { failures: 0, refused: 0, outages: 0 };

  constructor(logger: Logger, now: () => number = Date.now, backoff: Backoff = new Backoff({ initialMs: 500, maxMs: 30_000 })) {
    this.logger = logger;
    this.now = now;
    this.backoff = backoff;
  }

  /** Calls are failing now: an outage is on, or the gate is closed after a failure. */
  get failing(): boolean {
    return this.outageSince !== undefined || this.now() < this.closedUntil;
  }

  /** May a write go out now? */
  isOpen(): boolean {
    if (this.now() >= this.closedUntil) return true;
    this.stats.refused += 1;
    return false;
  }

  succeeded(): void {
    if (this.outageSince !== undefined) {
      this.logger.info({ downForMs: this.now() - this.outageSince }, 'API server reachable again');
      this.outageSince = undefined;
    }
    this.backoff.reset();
    this.closedUntil = 0;
  }

  /**
   * Records a failed call and closes the gate for the next backoff delay. Transient failures log
   * once per outage; others (forbidden, invalid) are logged each time, at most once per delay.
   */
  failed(err: unknown, action: string): EdgeshifuError {
    const error = toKubeError(err, action);
    this.stats.failures += 1;
    const delay = this.backoff.next();
    this.closedUntil = this.now() + delay;
    if (!error.transient) {
      this.logger.error({ err: error.message, kind: error.kind, retryInMs: delay }, `${action} failed`);
    } else if (this.outageSince === undefined) {
      this.outageSince = this.now();
      this.stats.outages += 1;
      this.logger.warn({ err: error.message, retryInMs: delay }, 'API server unavailable; backing off');
    }
    return error;
  }
}
