// The one place where failures become HTTP replies: EdgeshifuError kinds → status codes, and one
// JSON shape for every error body: {"error": {"kind", "message", "instruction"?}}.
import { EdgeshifuError, type ErrorKind } from '../../shared/errors.ts';

export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  internal: 500,
  unavailable: 502,
  timeout: 504,
};

/** A failure that is about HTTP itself (405, 413): its status is not one of a kind's. */
export class HttpProblem extends EdgeshifuError {
  override readonly name = 'HttpProblem';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, kind: ErrorKind, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(kind, message);
    this.status = status;
    this.headers = headers;
  }
}

export interface ErrorBody {
  readonly error: { readonly kind: ErrorKind; readonly message: string; readonly instruction?: string };
}

export interface Problem {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ErrorBody;
}

export function problemOf(err: unknown, instruction?: string): Problem {
  const known = err instanceof EdgeshifuError ? err : new EdgeshifuError('internal', `deviceShifu failed: ${err instanceof Error ? err.message : String(err)}`);
  const status = known instanceof HttpProblem ? known.status : STATUS_OF_KIND[known.kind];
  const headers = known instanceof HttpProblem ? known.headers : {};
  return { status, headers, body: { error: { kind: known.kind, message: known.message, ...(instruction === undefined ? {} : { instruction }) } } };
}
