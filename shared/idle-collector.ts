// One full heap collection when a busy process goes quiet. Under load V8 grows the old generation
// towards its cap and, in Node, keeps those pages once the load has gone: a deviceShifu held 33 MiB
// of working set 15 s after a 64-connection load, and 17 MiB after one collection
// (deviceshifu/README.md, "Idle collection"). The collection is a pause of tens of milliseconds, so
// it runs only when the event loop has been nearly idle for a whole interval: no request waits on it.
// On when the process runs with --expose-gc (the flag is the switch, visible in the pod's
// NODE_FLAGS); a pure step decides, a timer shell measures and collects.
import { performance } from 'node:perf_hooks';
import type { Logger } from './log.ts';

export interface IdleCollectorSettings {
  /** How often the event loop's utilisation is read. */
  readonly intervalMs: number;
  /** An interval whose utilisation is under this is quiet; at or over it, busy. */
  readonly quietBelow: number;
  /** Intervals between two collections at least, however often the load comes and goes. */
  readonly minGapIntervals: number;
}

export const IDLE_COLLECTOR: IdleCollectorSettings = { intervalMs: 2000, quietBelow: 0.02, minGapIntervals: 5 };

export interface IdleState {
  /** Busy since the last collection: there is garbage worth collecting. */
  readonly busy: boolean;
  readonly sinceCollection: number;
}

/** Start-up counts as busy: the first quiet interval after it collects what loading left. */
export const STARTING: IdleState = { busy: true, sinceCollection: Number.POSITIVE_INFINITY };

/** One interval's reading: the next state, and whether to collect now. Pure. */
export function idleStep(state: IdleState, utilization: number, settings: IdleCollectorSettings): { state: IdleState; collect: boolean } {
  const sinceCollection = state.sinceCollection + 1;
  if (utilization >= settings.quietBelow) return { state: { busy: true, sinceCollection }, collect: false };
  if (state.busy && sinceCollection >= settings.minGapIntervals) return { state: { busy: false, sinceCollection: 0 }, collect: true };
  return { state: { busy: state.busy, sinceCollection }, collect: false };
}

export interface IdleCollector {
  stop(): void;
}

/** The collector, or undefined when the process was not started with --expose-gc. */
export function startIdleCollector(logger: Logger, settings: IdleCollectorSettings = IDLE_COLLECTOR): IdleCollector | undefined {
  const gc = (globalThis as { gc?: (options?: object) => void }).gc;
  if (typeof gc !== 'function') return undefined;
  let state = STARTING;
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const step = idleStep(state, performance.eventLoopUtilization(now, last).utilization, settings);
    state = step.state;
    if (step.collect) {
      const before = process.memoryUsage().heapUsed;
      const started = performance.now();
      // 'last-resort' is V8's memory-reducing collection: it also hands free pages back to the
      // system, which two ordinary full collections in a row did not (RSS stayed at 81 MB).
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      logger.debug({ ms: Math.round(performance.now() - started), heapUsedBefore: before, heapUsedAfter: process.memoryUsage().heapUsed }, 'heap collected while idle');
    }
    // read after the collection, so its own pause does not count as the next interval's load
    last = performance.eventLoopUtilization();
  }, settings.intervalMs);
  timer.unref();
  return { stop: () => { clearInterval(timer); } };
}
