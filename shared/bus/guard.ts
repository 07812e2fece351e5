// What a receiver holds an authenticated neighbour to before it spends work on a message (pure):
// a token bucket per (link, origin, kind), checked from the topic alone before the payload is
// parsed, and a replay window on the sender's timestamp, checked once the message is parsed.
// The topic's first level is the login that published it (the broker's ACL proves it), so a
// neighbour that floods empties only its own buckets, also when it relays under other origins.
import { EdgeshifuError } from '../errors.ts';

export interface RateLimit {
  /** Tokens added per second (messages per second held). */
  readonly perSecond: number;
  /** Most tokens held (the burst let through at once). */
  readonly burst: number;
}

export interface RateLimits {
  /** For kinds without their own entry. */
  readonly default: RateLimit;
  readonly byKind?: Readonly<Record<string, RateLimit>>;
}

interface Bucket { tokens: number; at: number }

/** Most buckets held: beyond it the least recently used go (a neighbour naming endless origins cannot grow memory). */
const MAX_BUCKETS = 10_000;

export class RateLimiter {
  private readonly limits: RateLimits;
  private readonly buckets = new Map<string, Bucket>();

  constructor(limits: RateLimits) {
    for (const [kind, limit] of Object.entries({ default: limits.default, ...limits.byKind })) {
      if (!(limit.perSecond > 0) || !(limit.burst >= 1)) throw new EdgeshifuError('invalid', `rate limit for ${kind} needs perSecond > 0 and burst >= 1, got ${JSON.stringify(limit)}`);
    }
    this.limits = limits;
  }

  /** Takes one token for a message of `kind` that `link` published for `origin`; false when its bucket is empty. */
  take(link: string, origin: string, kind: string, now: number): boolean {
    const limit = this.limits.byKind?.[kind] ?? this.limits.default;
    const key = `${link}>${origin}>${kind}`;
    const held = this.buckets.get(key);
    const bucket = held ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (Math.max(0, now - bucket.at) * limit.perSecond) / 1000);
    bucket.at = now;
    // Most recently used last (Map keeps insertion order), so eviction takes the idle ones first.
    if (held !== undefined) this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_BUCKETS) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

/**
 * Transport-level pacing (the embedded broker): a bucket per login that may run into debt; each
 * publish over the rate waits until its token is due. The broker holds the publish that long, and
 * aedes reads no more of that connection until every publish of the batch it read is done, so a
 * flooding neighbour is slowed by TCP backpressure instead of costing this process its traffic.
 */
export class Pacer {
  private readonly limit: RateLimit;
  private readonly buckets = new Map<string, Bucket>();

  constructor(limit: RateLimit) {
    if (!(limit.perSecond > 0) || !(limit.burst >= 1)) throw new EdgeshifuError('invalid', `broker pace needs perSecond > 0 and burst >= 1, got ${JSON.stringify(limit)}`);
    this.limit = limit;
  }

  /** Milliseconds the next publish of `login` must wait (0: at once); takes its token either way. */
  wait(login: string, now: number): number {
    const { perSecond, burst } = this.limit;
    const bucket = this.buckets.get(login) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.at) * perSecond) / 1000) - 1;
    bucket.at = now;
    this.buckets.set(login, bucket);
    return bucket.tokens >= 0 ? 0 : Math.ceil((-bucket.tokens * 1000) / perSecond);
  }

  forget(login: string): void {
    this.buckets.delete(login);
  }
}

export interface ReplayWindow {
  /** Oldest sender timestamp accepted, ms before the receiver's clock. */
  readonly pastMs: number;
  /** Furthest ahead of the receiver's clock a sender's timestamp may be (clock skew), ms. */
  readonly futureMs: number;
}

/** Why a timestamp is outside the window, or undefined when it is inside. */
export function outsideWindow(timestamp: number, now: number, window: ReplayWindow): string | undefined {
  if (timestamp < now - window.pastMs) return `timestamp ${timestamp} is ${now - timestamp} ms old, more than the replay window of ${window.pastMs} ms`;
  if (timestamp > now + window.futureMs) return `timestamp ${timestamp} is ${timestamp - now} ms ahead of this clock, more than the ${window.futureMs} ms allowed for skew`;
  return undefined;
}

/**
 * A de-duplication memory must hold ids at least as long as the window accepts their messages, or
 * a copy replayed after its id was forgotten would pass. The ttl to give SeenIds.
 */
export function dedupTtl(window: ReplayWindow | undefined, fallbackMs: number): number {
  return window === undefined ? fallbackMs : Math.max(fallbackMs, window.pastMs + window.futureMs);
}
