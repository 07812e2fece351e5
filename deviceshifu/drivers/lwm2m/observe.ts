// Observe and Notify (LwM2M TS 1.0 §5.5, RFC 7641): GET with Observe 0 makes the client send the
// resource's value whenever it changes; each notification arrives on the same token. One
// observation per resource, shared by every telemetry on it and by Shifu's observe mode
// (EnableObserve: GET answers the latest notification). Observations belong to a registration:
// a new Register starts them again, and De-register or expiry ends them with an error to each
// telemetry. A client flooding notifications is throttled to one value per telemetry interval.
// observeIntervalSec (Shifu's setting, unused by Shifu's deviceShifu): an observation that has
// brought nothing for that long, or that failed, is made again on a new token, as RFC 7641 §3.3.1
// lets a client re-register its interest; a client that lost its observers but kept its
// registration (a restart from saved state, a notification lost on the way) is observed again.
import type { ObserveReadStream } from 'coap';
import type { Logger } from '../../../shared/log.ts';
import { errorMessage } from '../../../shared/errors.ts';
import type { SubscriptionSink } from '../driver.ts';
import { Throttle } from '../../telemetry/throttle.ts';
import { codeError, isSuccess } from './codes.ts';
import { exchange, type Session } from './exchange.ts';
import type { Lwm2mTarget } from './paths.ts';
import { readRequest, READABLE_FORMATS } from './read.ts';

export interface Notified {
  readonly body: Buffer;
  readonly contentType: string;
  readonly at: number;
}

interface Watcher {
  readonly sink: SubscriptionSink;
  readonly throttle: Throttle<Notified>;
}

interface Observation {
  readonly target: Lwm2mTarget;
  readonly watchers: Set<Watcher>;
  /** Kept for EnableObserve instructions. */
  cached: boolean;
  latest?: Notified;
  stream?: ObserveReadStream;
  notifications: number;
  /** When it last brought something (the observe answer or a notification). */
  heardAt: number;
  starting: boolean;
}

export class Observations {
  private readonly entries = new Map<string, Observation>();
  private live: Session | undefined;
  readonly stats = { notifications: 0, coalesced: 0, reobserved: 0 };
  private readonly logger: Logger;
  private readonly refreshMs: number;
  private refresher: NodeJS.Timeout | undefined;

  /** `refreshMs` > 0: observations silent that long are made again (observeIntervalSec). */
  constructor(logger: Logger, refreshMs = 0) {
    this.logger = logger;
    this.refreshMs = refreshMs > 0 ? refreshMs : 0;
  }

  /** A telemetry's subscription: values at most once per `intervalMs` until `signal` aborts. */
  watch(target: Lwm2mTarget, intervalMs: number, sink: SubscriptionSink, signal: AbortSignal): void {
    const entry = this.entry(target, false);
    const watcher: Watcher = { sink, throttle: new Throttle<Notified>(intervalMs, (n) => { sink.value({ status: 200, headers: { 'content-type': n.contentType }, body: n.body }); }) };
    entry.watchers.add(watcher);
    signal.addEventListener('abort', () => {
      entry.watchers.delete(watcher);
      this.stats.coalesced += watcher.throttle.coalesced;
      watcher.throttle.stop();
      if (entry.watchers.size === 0 && !entry.cached) this.forget(entry);
    }, { once: true });
    if (entry.stream === undefined && this.live !== undefined) void this.start(entry, this.live);
  }

  /** Shifu's observe mode for one instruction: observed whenever the client is registered. */
  keep(target: Lwm2mTarget): void {
    this.entry(target, true);
  }

  /** The latest notification of an EnableObserve resource, if one came during this registration. */
  latest(path: string): Notified | undefined {
    return this.entries.get(path)?.latest;
  }

  /** The client registered (again): every observation starts anew on it. */
  started(live: Session): void {
    this.ended();
    this.live = live;
    for (const entry of this.entries.values()) void this.start(entry, live);
    if (this.refreshMs > 0) {
      this.refresher = setInterval(() => { this.refresh(live); }, this.refreshMs);
      this.refresher.unref();
    }
  }

  /** The client is alive (an Update): telemetry phases stay fresh while values do not change. */
  alive(): void {
    for (const entry of this.entries.values()) for (const w of entry.watchers) w.sink.alive();
  }

  /** The registration ended; `err` goes to every telemetry. */
  ended(err?: Error): void {
    this.live = undefined;
    clearInterval(this.refresher);
    for (const entry of this.entries.values()) {
      entry.stream?.close();
      entry.stream = undefined;
      entry.latest = undefined;
      if (err !== undefined) for (const w of entry.watchers) w.sink.error(err);
    }
  }

  stop(): void {
    this.ended();
    for (const entry of this.entries.values()) for (const w of entry.watchers) w.throttle.stop();
    this.entries.clear();
  }

  private entry(target: Lwm2mTarget, cached: boolean): Observation {
    const found = this.entries.get(target.path);
    if (found !== undefined) {
      found.cached ||= cached;
      return found;
    }
    const entry: Observation = { target, watchers: new Set(), cached, notifications: 0, heardAt: 0, starting: false };
    this.entries.set(target.path, entry);
    return entry;
  }

  /** Observes again what has been silent for the whole interval, or failed. */
  private refresh(live: Session): void {
    if (this.live !== live) return;
    const now = Date.now();
    for (const entry of this.entries.values()) {
      if (entry.starting || now - entry.heardAt < this.refreshMs) continue;
      // locally only: the client may not know this token any more, and a new one replaces it
      entry.stream?.close(false);
      entry.stream = undefined;
      this.stats.reobserved += 1;
      this.logger.debug({ path: entry.target.path }, 'LwM2M observation silent for observeIntervalSec: observing again');
      void this.start(entry, live);
    }
  }

  private forget(entry: Observation): void {
    // tell the client to stop (GET with Observe 1) while it is there to hear it
    entry.stream?.close(this.live !== undefined);
    this.entries.delete(entry.target.path);
  }

  private async start(entry: Observation, live: Session): Promise<void> {
    const request = { ...readRequest(entry.target), what: `observe of ${entry.target.path}`, observe: true };
    entry.starting = true;
    try {
      const answer = await exchange(live, request, live.gone);
      if (!isSuccess(answer.code)) throw codeError(answer.code, request.what, answer.payload.toString('utf8'));
      const stream = answer.message as ObserveReadStream;
      if (this.live !== live || this.entries.get(entry.target.path) !== entry) {
        stream.close(this.live === live);
        return;
      }
      entry.stream = stream;
      entry.heardAt = Date.now();
      stream.on('data', (payload: Buffer) => {
        const format = stream.headers['Content-Format'];
        this.notified(entry, payload, format === undefined || format === null ? answer.contentFormat : String(format));
      });
      this.logger.info({ path: entry.target.path }, 'LwM2M resource observed');
    } catch (err) {
      if (live.gone.aborted) return;
      this.logger.warn({ path: entry.target.path, err: errorMessage(err) }, 'LwM2M observe failed; it is tried again at the observe interval and when the client registers again');
      for (const w of entry.watchers) w.sink.error(err as Error);
    } finally {
      entry.starting = false;
    }
  }

  private notified(entry: Observation, payload: Buffer, format: string | undefined): void {
    entry.notifications += 1;
    entry.heardAt = Date.now();
    this.stats.notifications += 1;
    const notified: Notified = { body: Buffer.from(payload), contentType: READABLE_FORMATS[format ?? 'text/plain'] ?? 'application/octet-stream', at: Date.now() };
    entry.latest = notified;
    for (const w of entry.watchers) w.throttle.offer(notified);
  }
}
