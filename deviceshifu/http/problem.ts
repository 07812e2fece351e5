// The one place where failures become HTTP replies: EdgeshifuError kinds → status codes, and one
// JSON shape for every error body: {"error": {"kind", "message", "instruction"?}}.
import { EdgeshifuError, type ErrorKind, STATUS_OF_KIND, errorMessage } from '../../shared/errors.ts';
import { absentCause } from '../drivers/device-errors.ts';

export { STATUS_OF_KIND };

/** Failures about HTTP itself, each with a status and a kind of its own in the error body. */
export const HTTP_PROBLEMS = { 'method-not-allowed': 405, 'too-large': 413 } as const;
export type HttpProblemKind = keyof typeof HTTP_PROBLEMS;

/** A failure about HTTP itself (405, 413): the caller's mistake ('invalid' for metrics and health). */
export class HttpProblem extends EdgeshifuError {
  override readonly name = 'HttpProblem';
  readonly problem: HttpProblemKind;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(problem: HttpProblemKind, message: string, headers: Readonly<Record<string, string>> = {}) {
    super('invalid', message);
    this.problem = problem;
    this.status = HTTP_PROBLEMS[problem];
    this.headers = headers;
  }
}

export interface ErrorBody {
  readonly error: { readonly kind: ErrorKind | HttpProblemKind; readonly message: string; readonly instruction?: string };
}

export interface Problem {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ErrorBody;
}

export function problemOf(err: unknown, instruction?: string): Problem {
  const known = err instanceof EdgeshifuError ? err : new EdgeshifuError('internal', `deviceShifu failed: ${errorMessage(err)}`);
  // a device that is not connected at all (an LwM2M client not registered) is 503, not 502
  const status = known instanceof HttpProblem ? known.status : absentCause(known) !== undefined ? 503 : STATUS_OF_KIND[known.kind];
  const headers = known instanceof HttpProblem ? known.headers : {};
  const kind = known instanceof HttpProblem ? known.problem : known.kind;
  return { status, headers, body: { error: { kind, message: known.message, ...(instruction === undefined ? {} : { instruction }) } } };
}
