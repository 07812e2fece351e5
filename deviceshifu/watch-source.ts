// Notices when something on disk changed (a ConfigMap volume's `..data` swap, an edited manifest):
// inotify through fs.watch on the directory, plus a slow poll in case an event was missed. Calls
// `onChange` with the new snapshot only when it differs from the last one.
import { sleep } from '../shared/backoff.ts';
import type { Logger } from '../shared/log.ts';

// not an ESM import: node:fs's namespace loads fs/promises (shared/files.ts)
const { watch } = process.getBuiltinModule('node:fs');

export interface WatchOptions {
  readonly dir: string;
  /** Reads the watched thing as one comparable snapshot. */
  readonly read: () => Promise<string>;
  readonly onChange: (snapshot: string) => Promise<void>;
  /** The snapshot already applied. */
  readonly initial: string;
  readonly pollMs: number;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export function watchSource(options: WatchOptions): void {
  let last = options.initial;
  let pending: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const check = (): void => {
    running = running.then(async () => {
      if (options.signal.aborted) return;
      const snapshot = await options.read().catch((err: unknown) => { options.logger.warn({ dir: options.dir, err: (err as Error).message }, 'reading a watched source failed'); return last; });
      if (snapshot === last) return;
      last = snapshot;
      await options.onChange(snapshot);
    });
  };
  const soon = (): void => {
    clearTimeout(pending);
    // The kubelet writes files, then swaps `..data`: let the burst settle.
    pending = setTimeout(check, 50);
  };
  try {
    const watcher = watch(options.dir, { signal: options.signal }, soon);
    watcher.on('error', (err) => { options.logger.warn({ dir: options.dir, err: err.message }, 'file watch failed; polling only'); });
  } catch (err) {
    options.logger.warn({ dir: options.dir, err: (err as Error).message }, 'file watch unavailable; polling only');
  }
  void (async () => {
    while (!options.signal.aborted) {
      await sleep(options.pollMs, options.signal);
      check();
    }
    clearTimeout(pending);
  })();
}
