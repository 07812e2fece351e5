// The controller's HTTP face: liveness, readiness, Prometheus metrics, and whatever routers the
// caller mounts (the edgeMap). Bound to the configured address (127.0.0.1 unless told otherwise).
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Router } from 'express';
import type { Registry } from 'prom-client';

export interface ServerOptions {
  readonly registry: Registry;
  /** Ready when this says so (caches synced, or standing by as a follower). */
  readonly ready: () => { ok: boolean; detail: string };
  readonly routers?: readonly Router[];
}

export function controllerApp(options: ServerOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => { res.type('text').send('ok'); });
  app.get('/readyz', (_req, res) => {
    const { ok, detail } = options.ready();
    res.status(ok ? 200 : 503).type('text').send(detail);
  });
  app.get('/metrics', async (_req, res) => {
    res.type(options.registry.contentType).send(await options.registry.metrics());
  });
  for (const router of options.routers ?? []) app.use(router);
  return app;
}

export async function listen(app: express.Express, host: string, port: number): Promise<{ server: Server; port: number }> {
  const server = app.listen(port, host);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}
