// Typed errors with a kind, so callers map them to HTTP codes, conditions and metrics in one place.
export const ERROR_KINDS = [
  'invalid',      // bad input: a resource, message, request or configuration that must be fixed by its author
  'not-found',    // something referenced does not exist (yet)
  'conflict',     // the world changed under us: re-read and retry
  'unavailable',  // a dependency (API server, broker, device) cannot be reached now: retry with backoff
  'timeout',      // a dependency did not answer in time
  'forbidden',    // not allowed (RBAC, broker ACL)
  'internal',     // a bug
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** The HTTP status of each kind, for every HTTP surface (deviceShifu, edgeMap, REAR). */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  internal: 500,
  unavailable: 502,
  timeout: 504,
};

export class EdgeshifuError extends Error {
  override readonly name: string = 'EdgeshifuError';
  readonly kind: ErrorKind;

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }

  /** Worth retrying later without anyone changing anything. */
  get transient(): boolean {
    return this.kind === 'conflict' || this.kind === 'unavailable' || this.kind === 'timeout';
  }
}

export function isEdgeshifuError(err: unknown, kind?: ErrorKind): err is EdgeshifuError {
  return err instanceof EdgeshifuError && (kind === undefined || err.kind === kind);
}

/** The message of anything thrown: an Error's own, or the value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
