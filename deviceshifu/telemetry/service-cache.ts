// TelemetryServices looked up at most once per `ttlMs` per name: a telemetry pushing every second
// must not cost the API server a GET every second (1,000 devices would be 1,000 GETs/s). An edit to
// a TelemetryService is followed within ttlMs. Failures are not kept: the next push asks again.
import type { ServiceResolver } from './pusher.ts';
import type { PushTarget } from './service.ts';

interface Entry {
  readonly at: number;
  readonly target: Promise<PushTarget | undefined>;
}

export function cachedServices(resolve: ServiceResolver, ttlMs: number, now: () => number = () => performance.now()): ServiceResolver {
  if (ttlMs <= 0) return resolve;
  const entries = new Map<string, Entry>();
  return (name) => {
    const entry = entries.get(name);
    if (entry !== undefined && now() - entry.at < ttlMs) return entry.target;
    const target = resolve(name);
    entries.set(name, { at: now(), target });
    target.catch(() => { if (entries.get(name)?.target === target) entries.delete(name); });
    return target;
  };
}
