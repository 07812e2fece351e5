// follow=true over a bus that answers each log request once: the log is read again every
// FOLLOW_INTERVAL_MS over the same signed exchange (rear-pod-log-request), from the last line
// written (sinceTime), until the provider says the pod or its contract is gone (not-found,
// forbidden) or the client leaves. The API server takes sinceTime to the second and includes that
// second, so each read asks with timestamps on and the lines at or before the last one written are
// skipped; the timestamps are taken off again unless the client asked for them.
import { isEdgeshifuError } from '../../../shared/errors.ts';
import type { LogOptions } from '../messages/pod-log-request.ts';

export const FOLLOW_INTERVAL_MS = 1_000;

export interface FollowIo {
  readonly read: (options: LogOptions) => Promise<{ log: string; truncated: boolean }>;
  /** The first call starts the answer (its headers); '' only starts it. */
  readonly write: (text: string) => void;
  readonly closed: () => boolean;
  readonly wait: (ms: number) => Promise<void>;
  readonly now: () => number;
}

/** An RFC 3339 time as sortable text: seconds, then the fraction to nine digits. */
function sortable(ts: string): string {
  const [whole = '', fraction = ''] = ts.replace(/Z$/, '').split('.');
  return `${whole}.${fraction.padEnd(9, '0')}`;
}

/** The lines of a read after `last` (a timestamp), each without its timestamp unless kept; and the new last. */
export function newLines(log: string, last: string | undefined, keepTimestamps: boolean): { text: string; last: string | undefined } {
  let latest = last;
  const out: string[] = [];
  for (const line of log.split('\n')) {
    const space = line.indexOf(' ');
    const ts = space > 0 ? line.slice(0, space) : '';
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(ts)) continue;
    if (latest !== undefined && sortable(ts) <= sortable(latest)) continue;
    latest = ts;
    out.push(keepTimestamps ? line : line.slice(space + 1));
  }
  return { text: out.map((l) => `${l}\n`).join(''), last: latest };
}

/** The options of every read after the first: from the second of the last line (or of the first read), timestamps on. */
export function followingRead(options: LogOptions, since: string): LogOptions {
  const { container, limitBytes } = options;
  return { ...(container === undefined ? {} : { container }), ...(limitBytes === undefined ? {} : { limitBytes }), timestamps: true, sinceTime: `${since.slice(0, 19)}Z` };
}

/** Follows the log; the first read's failure is thrown (nothing was written yet). Ends 'gone' or 'closed'. */
export async function followLog(io: FollowIo, options: LogOptions): Promise<'gone' | 'closed'> {
  const keep = options.timestamps === true;
  const started = new Date(io.now()).toISOString();
  const first = await io.read({ ...options, timestamps: true });
  let { text, last } = newLines(first.log, undefined, keep);
  io.write(text);
  while (!io.closed()) {
    await io.wait(FOLLOW_INTERVAL_MS);
    if (io.closed()) break;
    try {
      ({ text, last } = newLines((await io.read(followingRead(options, last ?? started))).log, last, keep));
      if (text !== '') io.write(text);
    } catch (err) {
      // the pod or its contract ended; anything else (no answer in time) is asked again
      if (isEdgeshifuError(err, 'not-found') || isEdgeshifuError(err, 'forbidden')) return 'gone';
    }
  }
  return 'closed';
}
