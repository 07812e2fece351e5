// CoAP response codes from an LwM2M client and failures of an exchange → EdgeshifuError kinds, in
// one place (pure). The codes are RFC 7252 §5.9 as LwM2M TS 1.0 §5 uses them; the kinds become
// HTTP statuses in http/problem.ts (not-found 404, forbidden 403, invalid 400, timeout 504,
// unavailable 502; an absent device 503).
import { EdgeshifuError, type ErrorKind } from '../../../shared/errors.ts';

const CODES: Readonly<Record<string, { readonly name: string; readonly kind: ErrorKind; readonly hint?: string }>> = {
  '4.00': { name: 'Bad Request', kind: 'invalid', hint: 'the device could not parse the request or the value' },
  '4.01': { name: 'Unauthorized', kind: 'forbidden', hint: 'the device\'s access control refuses this server' },
  '4.02': { name: 'Bad Option', kind: 'invalid' },
  '4.03': { name: 'Forbidden', kind: 'forbidden', hint: 'the device\'s access control refuses this operation' },
  '4.04': { name: 'Not Found', kind: 'not-found', hint: 'the device has no such object, instance or resource: check ObjectId' },
  '4.05': { name: 'Method Not Allowed', kind: 'forbidden', hint: 'the resource does not allow this operation (read-only, write-only or not executable)' },
  '4.06': { name: 'Not Acceptable', kind: 'invalid', hint: 'the device cannot answer in plain text: this resource needs another DataType or is not a single value' },
  '4.08': { name: 'Request Entity Incomplete', kind: 'invalid' },
  '4.12': { name: 'Precondition Failed', kind: 'invalid' },
  '4.13': { name: 'Request Entity Too Large', kind: 'invalid' },
  '4.15': { name: 'Unsupported Content-Format', kind: 'invalid', hint: 'the device does not accept this value format: check DataType' },
  '5.03': { name: 'Service Unavailable', kind: 'unavailable' },
  '5.04': { name: 'Gateway Timeout', kind: 'timeout' },
};

/** 2.xx: the operation succeeded. */
export function isSuccess(code: string): boolean {
  return code.startsWith('2.');
}

/** The error for a non-2.xx code answered to `what` ("read of /3303/0/5700"). */
export function codeError(code: string, what: string, diagnostic: string): EdgeshifuError {
  const known = CODES[code];
  const kind = known?.kind ?? (code.startsWith('4.') ? 'invalid' : 'unavailable');
  const detail = [known?.hint, diagnostic === '' ? undefined : `device says: ${diagnostic.slice(0, 200)}`].filter((s) => s !== undefined).join('; ');
  const name = known === undefined ? '' : ` ${known.name}`;
  return new EdgeshifuError(kind, `LwM2M client answered ${code}${name} to the ${what}${detail === '' ? '' : `: ${detail}`}`);
}

/** No answer after CoAP's retransmissions (RFC 7252 §4.8: about 93 s with the default timing). */
export function noAnswer(what: string, where: string): EdgeshifuError {
  return new EdgeshifuError('timeout', `LwM2M client at ${where} did not answer the ${what}`);
}

/** A socket failure while sending. */
export function sendFailure(err: unknown, what: string, where: string): EdgeshifuError {
  const message = err instanceof Error ? err.message : String(err);
  return new EdgeshifuError('unavailable', `LwM2M client at ${where}: sending the ${what} failed: ${message}`, { cause: err });
}
