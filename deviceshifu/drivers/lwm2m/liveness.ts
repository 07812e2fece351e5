// pingIntervalSec (Shifu's LwM2MSetting; Shifu's own deviceShifu accepts it and does nothing with
// it): > 0 checks a registered client that has not been heard from (Register, Update, an answer)
// within the interval. The check reads the Device object's Error Code, /3/0/11, a resource every
// LwM2M client has (the Device object and that resource are mandatory, LwM2M TS 1.0 Appendix E.4):
// any CoAP answer, even 4.04, shows the client alive. No answer within the interval (at most 10 s)
// marks the client unreachable: the driver's probe then fails with the reason, so /ready and the
// EdgeDevice's phase say so, until the client is heard from again. A CoAP ping (an empty
// confirmable message, RFC 7252 §4.3) would be lighter, but node-coap's agent has no call that
// sends one.
import { errorMessage } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/log.ts';
import { isoTime } from '../../../shared/time.ts';
import { exchange, where, type CoapRequest, type Session } from './exchange.ts';

const CHECK: CoapRequest = { method: 'GET', path: '/3/0/11', what: 'liveness check (read of /3/0/11)', accept: 'text/plain' };

export class Liveness {
  /** Why the registered client counts as unreachable; undefined while it answers. */
  unreachable: string | undefined;
  readonly stats = { checks: 0, missed: 0 };
  private heardAt = 0;
  private checking = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;
  private readonly logger: Logger;

  constructor(pingIntervalSec: number, logger: Logger) {
    this.intervalMs = pingIntervalSec > 0 ? pingIntervalSec * 1000 : 0;
    this.logger = logger;
  }

  /** The client spoke (registered, updated, answered): it is reachable. */
  heard(): void {
    this.heardAt = Date.now();
    if (this.unreachable === undefined) return;
    this.unreachable = undefined;
    this.logger.info('LwM2M client answers again');
  }

  /** Checks every interval while `session()` gives a registered client; nothing when pingIntervalSec ≤ 0. */
  start(session: () => Session | undefined): void {
    if (this.intervalMs === 0) return;
    this.timer = setInterval(() => { void this.check(session()); }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async check(live: Session | undefined): Promise<void> {
    if (live === undefined || this.checking || Date.now() - this.heardAt < this.intervalMs) return;
    this.checking = true;
    this.stats.checks += 1;
    try {
      await exchange(live, CHECK, AbortSignal.any([live.gone, AbortSignal.timeout(Math.min(this.intervalMs, 10_000))]));
      this.heard();
    } catch (err) {
      if (live.gone.aborted) return;
      this.stats.missed += 1;
      const first = this.unreachable === undefined;
      this.unreachable = `LwM2M client "${live.registration.endpointName}" at ${where(live.registration)} is registered but did not answer a liveness check at ${isoTime(Date.now())} (pingIntervalSec ${String(this.intervalMs / 1000)})`;
      if (first) this.logger.warn({ err: errorMessage(err) }, this.unreachable);
    } finally {
      this.checking = false;
    }
  }
}
