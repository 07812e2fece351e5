// Socket and HTTP-client failures → EdgeshifuError kinds, worded for the person reading the reply.
import { EdgeshifuError } from '../../shared/errors.ts';

export function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as NodeJS.ErrnoException).code === 'ABORT_ERR');
}

/** Leaves aborts alone (the gateway knows whether it was the deadline); everything else is "unavailable". */
export function deviceError(err: unknown, where: string): Error {
  if (err instanceof EdgeshifuError) return err;
  if (isAbort(err)) return err as Error;
  const e = err as NodeJS.ErrnoException;
  const code = e.code ?? '';
  let what = e.message;
  if (code === 'ECONNREFUSED') what = 'refused the connection';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') what = 'has a host name that does not resolve';
  else if (code === 'ECONNRESET' || e.message === 'socket hang up') what = 'closed the connection before answering';
  else if (code.startsWith('HPE_')) what = `sent an invalid HTTP response (${e.message})`;
  else if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') what = `is unreachable (${code})`;
  return new EdgeshifuError('unavailable', `device at ${where} ${what}`, { cause: err });
}

/**
 * The device is not connected to deviceShifu at all (an LwM2M client that has not registered, or
 * whose registration expired): 'unavailable' for metrics and health, 503 for the caller
 * (http/problem.ts), since only the device can end it and retrying later may well succeed.
 */
export class DeviceAbsentError extends EdgeshifuError {
  override readonly name = 'DeviceAbsentError';

  constructor(message: string) {
    super('unavailable', message);
  }
}

/** The DeviceAbsentError in `err` or its causes (the gateway wraps errors to name the device). */
export function absentCause(err: unknown): DeviceAbsentError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    if (e instanceof DeviceAbsentError) return e;
  }
  return undefined;
}
