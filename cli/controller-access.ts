// The controller's HTTP endpoints (/readyz, /metrics, /edgemap, /edgemap.dot), reached directly
// (the local stack, --controller) or through the API server's service proxy on a real cluster,
// which works wherever kubectl does.
import { EdgeshifuError, errorMessage } from '../shared/errors.ts';
import { paths, type ClusterAccess } from './cluster.ts';
import type { ControllerChoice } from './connection.ts';

export interface HttpReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface ControllerAccess {
  /** Where it is, for messages and the status report. */
  readonly where: string;
  /** Any HTTP answer; throws 'unavailable' when nothing answers. */
  get(path: string): Promise<HttpReply>;
}

const TIMEOUT_MS = 10_000;

/** The reason of a failed fetch: undici hides it in `cause` (ECONNREFUSED, ENOTFOUND, ...). */
export function fetchFailure(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  const text = cause instanceof Error ? cause.message : errorMessage(err);
  return err instanceof Error && err.name === 'TimeoutError' ? 'no answer in time' : text;
}

export function directController(url: string, source: string): ControllerAccess {
  return {
    where: url,
    async get(path) {
      try {
        const reply = await fetch(`${url}${path}`, { headers: { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
        return { status: reply.status, contentType: reply.headers.get('content-type') ?? '', body: await reply.text() };
      } catch (err) {
        throw new EdgeshifuError('unavailable', `the controller at ${url} (from ${source}) does not answer: ${fetchFailure(err)}. Is it running? Pass --controller with its address.`, { cause: err });
      }
    },
  };
}

/** The API server's own Status in place of the controller's answer: no endpoint, no such Service. */
function proxyFailure(reply: HttpReply): string | undefined {
  if (!reply.contentType.includes('application/json')) return undefined;
  try {
    const status = JSON.parse(reply.body) as { kind?: string; message?: string };
    return status.kind === 'Status' ? status.message ?? `HTTP ${String(reply.status)}` : undefined;
  } catch {
    return undefined;
  }
}

export function proxiedController(cluster: ClusterAccess, choice: Extract<ControllerChoice, { kind: 'proxy' }>): ControllerAccess {
  const base = paths.serviceProxy(choice.namespace, choice.service, 'http');
  const where = `service ${choice.namespace}/${choice.service} through the API server ${cluster.server}`;
  return {
    where,
    async get(path) {
      const reply = await cluster.raw('GET', `${base}${path}`, `reach the controller (${where})`);
      const failure = reply.status >= 400 ? proxyFailure(reply) : undefined;
      if (failure !== undefined) {
        throw new EdgeshifuError('unavailable', `the controller (${where}) cannot be reached: ${failure}. Is edgeshifu installed (kubectl apply -k manifests/overlays/...)? Or pass --controller with its address.`);
      }
      return reply;
    },
  };
}
