// Write (LwM2M TS 1.0 §5.4.3): PUT /<object>/<instance>/<resource> replaces the value; the body is
// checked against the resource's type first (values.ts), so a value that does not fit never
// leaves deviceShifu. 2.04 Changed is success.
import { codeError, isSuccess } from './codes.ts';
import { exchange, type Session } from './exchange.ts';
import type { Lwm2mTarget } from './paths.ts';
import { CONTENT_FORMAT, encodeValue } from './values.ts';

export async function write(session: Session, target: Lwm2mTarget, body: Buffer, signal: AbortSignal): Promise<string> {
  const value = encodeValue(target.kind, body, target.path);
  const what = `write of ${target.path}`;
  const answer = await exchange(session, {
    method: 'PUT', path: target.path, what, payload: value.payload,
    contentFormat: value.contentFormat === CONTENT_FORMAT.opaque ? 'application/octet-stream' : 'text/plain',
  }, signal);
  if (!isSuccess(answer.code)) throw codeError(answer.code, what, answer.payload.toString('utf8'));
  return value.payload.toString('utf8');
}
