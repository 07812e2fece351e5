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
