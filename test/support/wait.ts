// Waiting on conditions with a deadline: the only way tests and the harness wait.
import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage } from '../../shared/errors.ts';

export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** Checked between attempts: a process that died makes waiting pointless. */
  readonly abortIf?: () => string | undefined;
}

/**
 * Polls `probe` until it returns a value other than undefined, or throws DeadlineExceeded naming
 * `what` and the last error seen.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, options: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError = '';
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = errorMessage(err);
    }
    const aborted = options.abortIf?.();
    if (aborted !== undefined) throw new Error(`gave up waiting for ${what}: ${aborted}`);
    if (Date.now() >= deadline) {
      throw new DeadlineExceeded(`timed out waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}`);
    }
    await delay(options.intervalMs ?? 100);
  }
}
