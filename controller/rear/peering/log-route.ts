// The consumer's route to a carried pod's log, on the controller's server (behind its token
// guard): GET /rear/v1/namespaces/{namespace}/pods/{name}/log with kubectl's query parameters
// (container, tailLines, limitBytes, sinceSeconds, timestamps, previous, follow). The answer is
// the log as text/plain; `x-edgeshifu-log-truncated: true` when only its end fitted. With
// follow=true it streams (chunked) until the pod or its contract ends (log-follow.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EdgeshifuError } from '../../../shared/errors.ts';
import type { HttpRoute } from '../../../shared/node-http.ts';
import { HttpProblem, problemOf } from '../../../deviceshifu/http/problem.ts';
import { sleep } from '../../../shared/backoff.ts';
import type { LogOptions } from '../messages/pod-log-request.ts';
import { followLog } from './log-follow.ts';

export const LOG_ROUTE = /^\/rear\/v1\/namespaces\/([a-z0-9][-a-z0-9]{0,62})\/pods\/([a-z0-9][-a-z0-9.]{0,252})\/log$/;

function count(params: URLSearchParams, name: string, minimum: number): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < minimum) throw new EdgeshifuError('invalid', `${name} must be a whole number of at least ${String(minimum)}, not "${raw}"`);
  return Number(raw);
}

function flag(params: URLSearchParams, name: string): boolean | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (raw !== 'true' && raw !== 'false') throw new EdgeshifuError('invalid', `${name} must be true or false, not "${raw}"`);
  return raw === 'true';
}

/** Whether the query asks to follow the log (a previous container's log does not grow). */
export function followOf(params: URLSearchParams): boolean {
  const follow = flag(params, 'follow') === true;
  if (follow && params.get('previous') === 'true') throw new EdgeshifuError('invalid', 'follow and previous=true do not go together: a previous container\'s log does not grow');
  return follow;
}

/** The log options of a query, as kubectl names them (follow apart: followOf). */
export function logOptionsOf(params: URLSearchParams): LogOptions {  const container = params.get('container');
  const options: Record<string, unknown> = {
    container: container ?? undefined, tailLines: count(params, 'tailLines', 0), limitBytes: count(params, 'limitBytes', 1),
    sinceSeconds: count(params, 'sinceSeconds', 1), timestamps: flag(params, 'timestamps'), previous: flag(params, 'previous'),
  };
  if (container !== null && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(container)) throw new EdgeshifuError('invalid', `container "${container}" is not a container name`);
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

type Logs = (namespace: string, name: string, options: LogOptions) => Promise<{ log: string; truncated: boolean }>;

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res.writeHead(status, { 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

/** A followed log, chunked: the answer starts after the first read, ends when the pod or its contract does, or the client leaves. */
async function follow(req: IncomingMessage, res: ServerResponse, read: (o: LogOptions) => Promise<{ log: string; truncated: boolean }>, options: LogOptions): Promise<void> {
  const left = new AbortController();
  res.on('close', () => { left.abort(); });
  await followLog({
    read,
    write: (text) => {
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      if (text !== '') res.write(text);
    },
    closed: () => left.signal.aborted,
    wait: (ms) => sleep(ms, left.signal),
    now: Date.now,
  }, options);
  res.end();
}

export function podLogRoute(logs: () => Logs | undefined): HttpRoute {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = LOG_ROUTE.exec(url.pathname);
    if (match === null) return false;
    try {
      if (req.method !== 'GET') throw new HttpProblem('method-not-allowed', `${url.pathname} takes GET only`, { allow: 'GET' });
      const read = logs();
      if (read === undefined) throw new EdgeshifuError('unavailable', 'REAR\'s peering has not started yet: ask again');
      const [namespace = '', name = ''] = [match[1], match[2]];
      const options = logOptionsOf(url.searchParams);
      if (followOf(url.searchParams)) {
        await follow(req, res, (o) => read(namespace, name, o), options);
        return true;
      }
      const { log, truncated } = await read(namespace, name, options);
      send(res, 200, log, { 'content-type': 'text/plain; charset=utf-8', ...(truncated ? { 'x-edgeshifu-log-truncated': 'true' } : {}) });
    } catch (err) {
      const problem = problemOf(err);
      if (!res.headersSent) send(res, problem.status, JSON.stringify(problem.body), { 'content-type': 'application/json', ...problem.headers });
      else res.end();
    }
    return true;
  };
}
