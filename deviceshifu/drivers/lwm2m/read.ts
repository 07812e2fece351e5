// Read (LwM2M TS 1.0 §5.4.1): GET /<object>/<instance>/<resource>, asking for plain text; 2.05
// Content carries the value. A client may answer opaque bytes for an Opaque resource.
import { EdgeshifuError } from '../../../shared/errors.ts';
import { codeError, isSuccess } from './codes.ts';
import { exchange, type CoapAnswer, type Session } from './exchange.ts';
import type { Lwm2mTarget } from './paths.ts';

/** Formats a single-resource value may come back in, and the HTTP content type it is answered with. */
export const READABLE_FORMATS: Readonly<Record<string, string>> = {
  'text/plain': 'text/plain; charset=utf-8',
  'application/octet-stream': 'application/octet-stream',
};

export function readRequest(target: Lwm2mTarget): { method: 'GET'; path: string; what: string; accept: string } {
  return { method: 'GET', path: target.path, what: `read of ${target.path}`, accept: target.kind === 'Opaque' ? 'application/octet-stream' : 'text/plain' };
}

/** The value of a 2.05, or the error its code or format means. */
export function readValue(answer: CoapAnswer, what: string): { body: Buffer; contentType: string } {
  if (!isSuccess(answer.code)) throw codeError(answer.code, what, answer.payload.toString('utf8'));
  const format = answer.contentFormat ?? 'text/plain';
  const contentType = READABLE_FORMATS[format];
  if (contentType === undefined) throw new EdgeshifuError('unavailable', `LwM2M client answered the ${what} as ${format}; deviceShifu reads single resources as text/plain or opaque`);
  return { body: answer.payload, contentType };
}

export async function read(session: Session, target: Lwm2mTarget, signal: AbortSignal): Promise<{ body: Buffer; contentType: string }> {
  const request = readRequest(target);
  return readValue(await exchange(session, request, signal), request.what);
}
