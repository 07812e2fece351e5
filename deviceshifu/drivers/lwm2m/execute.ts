// Execute (LwM2M TS 1.0 §5.4.5): POST /<object>/<instance>/<resource> with optional arguments as
// text (0='on',1); 2.04 Changed is success. Only resources that are executable get one.
import { codeError, isSuccess } from './codes.ts';
import { exchange, type Session } from './exchange.ts';
import type { Lwm2mTarget } from './paths.ts';
import { executeArguments } from './values.ts';

export async function execute(session: Session, target: Lwm2mTarget, body: Buffer, signal: AbortSignal): Promise<void> {
  const args = executeArguments(body, target.path);
  const what = `execute of ${target.path}`;
  const answer = await exchange(session, {
    method: 'POST', path: target.path, what, ...(args.length === 0 ? {} : { payload: args, contentFormat: 'text/plain' }),
  }, signal);
  if (!isSuccess(answer.code)) throw codeError(answer.code, what, answer.payload.toString('utf8'));
}
