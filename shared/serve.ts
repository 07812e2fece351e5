// How a serving process (deviceShifu, its per-node host, a mock device) runs: started, it serves
// until SIGINT or SIGTERM, stops cleanly and exits 0. One that cannot start says why in one line
// and exits 2 for configuration to fix (as the controller and shifud do), 1 for anything else.
// Started with --expose-gc, it also collects the heap when a busy spell ends (idle-collector.ts).
import { errorMessage, isEdgeshifuError } from './errors.ts';
import { startIdleCollector } from './idle-collector.ts';
import type { Logger } from './log.ts';

export interface Serving {
  stop(): Promise<void>;
}

/** Starts with `start`; `what` names the process in the failure line ("<what> failed to start"). */
export async function serveUntilSignal(logger: Logger, what: string, start: () => Promise<Serving>): Promise<void> {
  try {
    const running = await start();
    const collector = startIdleCollector(logger);
    const stop = (): void => { collector?.stop(); void running.stop().then(() => process.exit(0)); };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    logger.error({ err: errorMessage(err) }, `${what} failed to start`);
    process.exitCode = isEdgeshifuError(err, 'invalid') ? 2 : 1;
  }
}
