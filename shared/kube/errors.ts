// Maps an API server failure (client-node's ApiException carrying a metav1.Status) to an
// EdgeshifuError whose message is the API server's own, e.g. which field is invalid.
import { EdgeshifuError, type ErrorKind, errorMessage } from '../errors.ts';

export interface KubeStatus {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
}

function parseBody(body: unknown): Partial<KubeStatus> {
  if (typeof body === 'string') {
    try {
      return parseBody(JSON.parse(body));
    } catch {
      return { message: body };
    }
  }
  if (typeof body !== 'object' || body === null) return {};
  const status = body as Record<string, unknown>;
  return {
    reason: typeof status.reason === 'string' ? status.reason : undefined,
    message: typeof status.message === 'string' ? status.message : undefined,
  };
}

/** The Status of a failed API call, or undefined for errors that never reached the server. */
export function kubeStatusOf(err: unknown): KubeStatus | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err) || typeof err.code !== 'number') return undefined;
  const body = parseBody('body' in err ? err.body : undefined);
  return { code: err.code, reason: body.reason ?? '', message: body.message ?? (err instanceof Error ? err.message : '') };
}

function kindOfCode(code: number): ErrorKind {
  if (code === 400 || code === 422 || code === 415) return 'invalid';
  if (code === 401 || code === 403) return 'forbidden';
  if (code === 404 || code === 410) return 'not-found';
  if (code === 409) return 'conflict';
  if (code === 504) return 'timeout';
  if (code === 429 || code >= 500) return 'unavailable';
  return 'internal';
}

/** Wraps any error from a Kubernetes call; network failures count as unavailable. */
export function toKubeError(err: unknown, action: string): EdgeshifuError {
  if (err instanceof EdgeshifuError) return err;
  const status = kubeStatusOf(err);
  if (status === undefined) {
    const message = errorMessage(err);
    return new EdgeshifuError('unavailable', `${action}: API server unreachable: ${message}`, { cause: err });
  }
  return new EdgeshifuError(kindOfCode(status.code), `${action}: ${status.message || status.reason || `HTTP ${status.code}`}`, { cause: err });
}
