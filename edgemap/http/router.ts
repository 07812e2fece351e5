// The edgeMap over HTTP, mounted by the controller at `/` (issue 6):
//   GET /edgemap          JSON snapshot
//   GET /edgemap.dot      Graphviz DOT
//   GET /edgemap/events   server-sent events: `snapshot`, then one `change` per change; heartbeats
//   GET /edgemap/         the live page (and its edgemap.js, edgemap.css)
import { Router } from 'express';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../../shared/log.ts';
import { toDot } from '../dot.ts';
import { toSnapshot } from '../snapshot.ts';
import { defaultPageDir, sendPageFile } from './page-files.ts';
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
  /** Registers edgeshifu_edgemap_stream_clients and edgeshifu_edgemap_stream_dropped_total here. */
  readonly registry?: Registry;
}

function streamMetrics(registry: Registry | undefined): { onClients?: (n: number) => void; onDropped?: () => void } {
  if (registry === undefined) return {};
  const clients = new Gauge({ name: 'edgeshifu_edgemap_stream_clients', help: 'edgeMap SSE clients attached', registers: [registry] });
  const dropped = new Counter({ name: 'edgeshifu_edgemap_stream_dropped_total', help: 'edgeMap SSE clients dropped for falling behind', registers: [registry] });
  return { onClients: (n) => { clients.set(n); }, onDropped: () => { dropped.inc(); } };
}

export function edgeMapRouter(map: EdgeMapSource, options: EdgeMapRouterOptions = {}): Router {
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

  // strict: `/edgemap` (JSON) and `/edgemap/` (the page) are different resources.
  const router = Router({ strict: true });
  router.get('/edgemap', (req, res) => {
    // A browser asking for /edgemap wants the page; every other client gets the snapshot.
    if (req.accepts(['json', 'html']) === 'html') res.redirect(303, 'edgemap/');
    else res.json(toSnapshot(map));
  });
  router.get('/edgemap.dot', (_req, res) => { res.type('text/vnd.graphviz').send(toDot(map)); });
  router.get('/edgemap/events', (req, res) => { stream.attach(req, res); });
  router.get('/edgemap/', (_req, res) => sendPageFile(res, pageDir, 'index.html'));
  router.get('/edgemap/edgemap.js', (_req, res) => sendPageFile(res, pageDir, 'edgemap.js'));
  router.get('/edgemap/edgemap.css', (_req, res) => sendPageFile(res, pageDir, 'edgemap.css'));
  return router;
}
