// Probe scheduling: on a schedule with jitter, probes bounded in count, rate and time.
// Pure: the discoverer owns the clock, the random source and the state.

/** Newly seen devices are first probed within this long: spread, so a restart does not probe all at once. */
export const FIRST_PROBE_SPREAD_MS = 5000;

export function firstProbeAt(now: number, intervalMs: number, random: () => number): number {
  return now + Math.floor(random() * Math.min(intervalMs, FIRST_PROBE_SPREAD_MS));
}

/** The next probe: one period later, varied by up to ±jitter of it. */
export function nextProbeAt(finishedAt: number, intervalMs: number, jitter: number, random: () => number): number {
  return finishedAt + Math.max(1, Math.round(intervalMs * (1 + jitter * (2 * random() - 1))));
}

export interface TokenBucket {
  readonly tokens: number;
  readonly at: number;
}

export interface Rate {
  readonly perSecond: number;
  readonly burst: number;
}

function refill(bucket: TokenBucket, rate: Rate, now: number): number {
  return Math.min(rate.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate.perSecond);
}

/** Takes up to `wanted` whole tokens: how many were granted and the bucket after. */
export function takeTokens(bucket: TokenBucket, rate: Rate, now: number, wanted: number): { granted: number; bucket: TokenBucket } {
  const available = refill(bucket, rate, now);
  const granted = Math.max(0, Math.min(wanted, Math.floor(available)));
  return { granted, bucket: { tokens: available - granted, at: now } };
}

export interface Due {
  readonly key: string;
  readonly at: number;
}

/** The keys due at `now`, earliest first, at most `limit` of them. */
export function dueKeys(schedule: ReadonlyMap<string, number>, now: number, limit: number): string[] {
  if (limit <= 0) return [];
  const due: Due[] = [];
  for (const [key, at] of schedule) if (at <= now) due.push({ key, at });
  return due.sort((a, b) => a.at - b.at).slice(0, limit).map((d) => d.key);
}

/** How long until the earliest entry is due (0 when one already is), capped. */
export function untilNextDue(schedule: ReadonlyMap<string, number>, now: number, capMs: number): number {
  let next = now + capMs;
  for (const at of schedule.values()) next = Math.min(next, at);
  return Math.max(0, next - now);
}
