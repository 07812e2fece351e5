// One full heap collection when a busy process goes quiet, if the busy spell grew the heap enough
// to be worth it. Under load V8 grows the old generation towards its cap and, in Node, keeps those
// pages once the load has gone: a deviceShifu held 33 MiB of working set 15 s after a 64-connection
// load, and 17 MiB after one collection (deviceshifu/README.md, "Idle collection"). The collection is
// a pause of tens of milliseconds, so it runs only when the event loop has been nearly idle for a
// whole interval: no request waits on it. It also costs the next burst: collected while idle, the
// objects the optimised request path had embedded are dead, V8 deoptimises that code ("embedded
// weak objects cleared") and the next calls run slower until it is optimised again, about a second
// of CPU. So only a heavy load is collected: a deviceShifu's committed heap levels off about 4.5 MiB
// over what a collection leaves under one connection, and 9-10 MiB over it after 64 connections.
// On when the process runs with --expose-gc (the flag is the switch, visible in the pod's
// NODE_FLAGS); a pure step decides, a timer shell measures and collects.
import type { Logger } from './log.ts';

// not ESM imports: their namespaces read every lazy export (perf_hooks' load its observers and histograms)
const { performance } = process.getBuiltinModule('node:perf_hooks');
const { getHeapStatistics } = process.getBuiltinModule('node:v8');

export interface IdleCollectorSettings {
  /** How often the event loop's utilisation is read. */
  readonly intervalMs: number;
  /** An interval whose utilisation is under this is quiet; at or over it, busy. */
  readonly quietBelow: number;
  /** Intervals between two collections at least, however often the load comes and goes. */
  readonly minGapIntervals: number;
  /** Heap bytes committed over what the last collection left, below which a quiet spell is not collected. */
  readonly minGrowthBytes: number;
}

export const IDLE_COLLECTOR: IdleCollectorSettings = { intervalMs: 2000, quietBelow: 0.02, minGapIntervals: 5, minGrowthBytes: 6 * 1024 * 1024 };

export interface IdleState {
  /** Busy since the last decision: there may be garbage worth collecting. */
  readonly busy: boolean;
  readonly sinceCollection: number;
  /** The heap's committed bytes right after the last collection (0 before the first). */
  readonly heapFloor: number;
}

/** Start-up counts as busy: the first quiet interval collects what loading left. */
export const STARTING: IdleState = { busy: true, sinceCollection: Number.POSITIVE_INFINITY, heapFloor: 0 };

/** One interval: the event loop's utilisation over it, and the heap's committed bytes at its end. */
export interface IdleReading {
  readonly utilization: number;
  readonly heapBytes: number;
}

export type IdleDecision = 'collect' | 'grew-too-little' | 'none';

/** One interval's reading: the next state, and what to do now. Pure. */
export function idleStep(state: IdleState, reading: IdleReading, settings: IdleCollectorSettings): { state: IdleState; decision: IdleDecision } {
  const sinceCollection = state.sinceCollection + 1;
  if (reading.utilization >= settings.quietBelow) return { state: { ...state, busy: true, sinceCollection }, decision: 'none' };
  if (!state.busy || sinceCollection < settings.minGapIntervals) return { state: { ...state, sinceCollection }, decision: 'none' };
  // a quiet spell ends the busy one either way: its heap will not grow while it stays quiet
  if (reading.heapBytes - state.heapFloor < settings.minGrowthBytes) return { state: { ...state, busy: false, sinceCollection }, decision: 'grew-too-little' };
  return { state: { ...state, busy: false, sinceCollection: 0 }, decision: 'collect' };
}

/** The state once the collection is done: `heapBytes` committed after it is the new floor. Pure. */
export function collected(state: IdleState, heapBytes: number): IdleState {
  return { ...state, heapFloor: heapBytes };
}

export interface IdleCollector {
  stop(): void;
}

const committed = (): number => getHeapStatistics().total_heap_size;

/** The collector, or undefined when the process was not started with --expose-gc. */
export function startIdleCollector(logger: Logger, settings: IdleCollectorSettings = IDLE_COLLECTOR): IdleCollector | undefined {
  const gc = (globalThis as { gc?: (options?: object) => void }).gc;
  if (typeof gc !== 'function') return undefined;
  let state = STARTING;
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const heapBytes = committed();
    const step = idleStep(state, { utilization: performance.eventLoopUtilization(now, last).utilization, heapBytes }, settings);
    state = step.state;
    if (step.decision === 'grew-too-little') logger.debug({ heapBytes, heapFloor: state.heapFloor }, 'heap grew too little to collect while idle');
    if (step.decision === 'collect') {
      const started = performance.now();
      // 'last-resort' is V8's memory-reducing collection: it also hands free pages back to the
      // system, which two ordinary full collections in a row did not (RSS stayed at 81 MB).
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      state = collected(state, committed());
      logger.debug({ ms: Math.round(performance.now() - started), heapBytesBefore: heapBytes, heapBytesAfter: state.heapFloor }, 'heap collected while idle');
    }
    // read after the collection, so its own pause does not count as the next interval's load
    last = performance.eventLoopUtilization();
  }, settings.intervalMs);
  timer.unref();
  return { stop: () => { clearInterval(timer); } };
}
