import { errorMessage } from '../../shared/errors.ts';
// What one reachability probe saw. Details are stable texts (no timings beyond the configured
// deadline), so an unchanged device gives an unchanged condition message and no write.
export type ProbeOutcome =
  /** The device (or broker) answered; HTTP probes add the status and the start of the body. */
  | { readonly kind: 'answered'; readonly detail: string; readonly httpStatus?: number; readonly body?: string }
  /** Connection refused or reset: the host is there, nothing listens. */
  | { readonly kind: 'refused'; readonly detail: string }
  /** No route, unknown name, host down. */
  | { readonly kind: 'unreachable'; readonly detail: string }
  /** No connection within the deadline. */
  | { readonly kind: 'timeout'; readonly detail: string }
  /** Connected, but no answer within the deadline: a device that accepts and hangs. */
  | { readonly kind: 'hung'; readonly detail: string }
  /** Something answered, but not in the device's protocol: another device at that address? */
  | { readonly kind: 'wrong-protocol'; readonly detail: string };

const REFUSED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);
const UNREACHABLE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTDOWN', 'EADDRNOTAVAIL']);

function codeOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth += 1) {
    if ('code' in e && typeof e.code === 'string') return e.code;
    e = 'cause' in e ? e.cause : undefined;
  }
  return undefined;
}

/** A socket-level failure as an outcome (refused vs unreachable), naming the target. */
export function failureOutcome(err: unknown, target: string): ProbeOutcome {
  const code = codeOf(err) ?? 'error';
  if (REFUSED.has(code)) return { kind: 'refused', detail: `${target} refused the connection (${code})` };
  if (UNREACHABLE.has(code)) return { kind: 'unreachable', detail: `${target} cannot be reached (${code})` };
  const message = errorMessage(err);
  return { kind: 'unreachable', detail: `${target} failed: ${message}` };
}
