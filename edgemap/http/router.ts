// The edgeMap over HTTP, mounted by the controller at `/`:
//   GET /edgemap          JSON snapshot
//   GET /edgemap.dot      Graphviz DOT
//   GET /edgemap/events   server-sent events: `snapshot`, then one `change` per change; heartbeats
//   GET /edgemap/         the live page (and its edgemap.js, edgemap.css)
// A plain node:http route (no express: it cost the controller ~15 MB of RSS). Paths match exactly:
// `/edgemap` (JSON) and `/edgemap/` (the page) are different resources.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isEdgeshifuError, STATUS_OF_KIND } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import type { HttpRoute } from '../../shared/node-http.ts';
import { Counter, Gauge, type Registry } from '../../shared/prometheus.ts';
import { toDot } from '../dot.ts';
import { closestNodeByLocation } from '../queries/closest-by-location.ts';
import { toSnapshot } from '../snapshot.ts';
import { defaultPageDir, sendPageFile, type PageFile } from './page-files.ts';
import { EdgeMapStream, type EdgeMapSource } from './stream.ts';

export interface EdgeMapRouterOptions {
  /** Folder holding the built page; dist/edgemap-page by default. */
  readonly pageDir?: string;
  /** Comment lines on idle streams, ms (default 15 s). */
  readonly heartbeatMs?: number;
  /** How far (bytes, beyond its snapshot) a stream client may fall behind before it is dropped (default 1 MiB). */
  readonly maxBufferedBytes?: number;
  /** Ends the streams and refuses new ones when aborted (server shutdown). */
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  /** Registers edgeshifu_edgemap_stream_clients and edgeshifu_edgemap_stream_dropped_total here (shared/prometheus.ts). */
  readonly registry?: Registry;
}

function streamMetrics(registry: Registry | undefined): { onClients?: (n: number) => void; onDropped?: () => void } {
  if (registry === undefined) return {};
  const clients = new Gauge({ name: 'edgeshifu_edgemap_stream_clients', help: 'edgeMap SSE clients attached', registers: [registry] });
  const dropped = new Counter({ name: 'edgeshifu_edgemap_stream_dropped_total', help: 'edgeMap SSE clients dropped for falling behind', registers: [registry] });
  return { onClients: (n) => { clients.set({}, n); }, onDropped: () => { dropped.inc(); } };
}

/** The quality an Accept header gives a media type (1 when there is no header, as HTTP says). */
function quality(accept: string | undefined, type: string): number {
  if (accept === undefined || accept.trim() === '') return 1;
  const [major] = type.split('/');
  let best = 0;
  let bestSpecificity = -1;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
    const specificity = range === type ? 2 : range === `${major ?? ''}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity <= bestSpecificity) continue;
    const q = params.find((p) => p.startsWith('q='));
    bestSpecificity = specificity;
    best = q === undefined ? 1 : Number(q.slice(2)) || 0;
  }
  return best;
}

/** A browser asking for /edgemap wants the page; every other client (ties included) gets the snapshot. */
export function prefersHtml(accept: string | undefined): boolean {
  return quality(accept, 'text/html') > quality(accept, 'application/json');
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(body) }).end(body);
}

/** The node the closeness ranking puts first for a device: what placement by location would choose. */
function sendClosest(res: ServerResponse, map: EdgeMapSource, device: string | null): void {
  if (device === null || device === '') {
    send(res, 400, 'application/json', JSON.stringify({ error: { kind: 'invalid', message: 'name the device: /edgemap/closest?device=<namespace>/<name>' } }));
    return;
  }
  try {
    const closest = closestNodeByLocation(map, device);
    if (closest === undefined) send(res, 404, 'application/json', JSON.stringify({ error: { kind: 'not-found', message: `no node qualifies for ${device}` } }));
    else send(res, 200, 'application/json', JSON.stringify(closest));
  } catch (err) {
    const kind = isEdgeshifuError(err) ? err.kind : 'internal';
    send(res, STATUS_OF_KIND[kind], 'application/json', JSON.stringify({ error: { kind, message: (err as Error).message } }));
  }
}

const PAGE_PATHS: Readonly<Record<string, PageFile>> = {
  '/edgemap/': 'index.html',
  '/edgemap/edgemap.js': 'edgemap.js',
  '/edgemap/edgemap.css': 'edgemap.css',
};

export function edgeMapRouter(map: EdgeMapSource, options: EdgeMapRouterOptions = {}): HttpRoute {
  const pageDir = options.pageDir ?? defaultPageDir();
  const stream = new EdgeMapStream(map, {
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxBufferedBytes: options.maxBufferedBytes ?? 1024 * 1024,
    retryMs: 2000,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...streamMetrics(options.registry),
  });
  if (options.signal?.aborted === true) stream.close();
  options.signal?.addEventListener('abort', () => { stream.close(); }, { once: true });

  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const page = PAGE_PATHS[path];
    if (page !== undefined) {
      await sendPageFile(res, pageDir, page);
    } else if (path === '/edgemap') {
      if (prefersHtml(req.headers.accept)) res.writeHead(303, { location: 'edgemap/', 'content-length': 0 }).end();
      else send(res, 200, 'application/json', JSON.stringify(toSnapshot(map)));
    } else if (path === '/edgemap/closest') {
      sendClosest(res, map, new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('device'));
    } else if (path === '/edgemap.dot') {
      send(res, 200, 'text/vnd.graphviz', toDot(map));
    } else if (path === '/edgemap/events') {
      stream.attach(req, res);
    } else {
      return false;
    }
    return true;
  };
}
