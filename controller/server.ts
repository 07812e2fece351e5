// The controller's HTTP face: liveness, readiness, Prometheus metrics, and whatever routes the
// caller mounts (the edgeMap). Bound to the configured address (127.0.0.1 unless told otherwise).
// On node:http alone: express cost the controller ~15 MB of RSS (controller/README.md, Footprint).
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../shared/log.ts';
import { http, type HttpRoute } from '../shared/node-http.ts';
import type { Registry } from '../shared/prometheus.ts';
import { setDateHeader } from '../shared/time.ts';
import { errorMessage } from '../shared/errors.ts';

export interface ServerOptions {
  readonly registry: Registry;
  /** Ready when this says so (caches synced, or standing by as a follower). */
  readonly ready: () => { ok: boolean; detail: string };
  readonly routes?: readonly HttpRoute[];
  readonly logger?: Logger;
  /**
   * Runs before /metrics and the routes (not the probes): true when it answered the request itself
   * (http-auth.ts tokenGuard: 401/403 when the edgeMap is exposed).
   */
  readonly guard?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

const PROBES = new Set(['/healthz', '/readyz']);

function text(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
}

/** The probes and the scrape: true when the path is one of them. */
function probes(options: ServerOptions, req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/healthz') {
    text(res, 200, 'ok');
  } else if (path === '/readyz') {
    const { ok, detail } = options.ready();
    text(res, ok ? 200 : 503, detail);
  } else if (path === '/metrics') {
    text(res, 200, options.registry.metrics(), options.registry.contentType);
  } else {
    return false;
  }
  return true;
}

async function answer(options: ServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    // Node's own Date header loads ICU's time zone data (shared/time.ts); kubelet probes every few seconds
    setDateHeader(res);
    const guard = options.guard;
    if (guard !== undefined && !PROBES.has((req.url ?? '/').split('?')[0] ?? '/') && await guard(req, res)) return;
    if (probes(options, req, res)) return;
    for (const route of options.routes ?? []) if (await route(req, res)) return;
    text(res, 404, 'not found: the controller serves /healthz, /readyz, /metrics and /edgemap\n');
  } catch (err) {
    options.logger?.warn({ err: errorMessage(err), path: req.url }, 'HTTP request failed');
    if (!res.headersSent) text(res, 500, 'internal error\n');
    else res.destroy();
  }
}

export function controllerServer(options: ServerOptions): Server {
  const server = http.createServer((req, res) => { void answer(options, req, res); });
  server.keepAliveTimeout = 5000;
  return server;
}

export async function listen(server: Server, host: string, port: number): Promise<{ server: Server; port: number }> {
  server.listen(port, host);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}
