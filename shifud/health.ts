// shifud's probes and scrape: /healthz (the loops are turning), /readyz (it has listed the
// EdgeDevices, registered its EdgeNode and the API server answers), /metrics (its counters in
// Prometheus text, shared/prometheus.ts). On node:http alone: express and prom-client would cost
// ~30 MB of RSS against shifud's 50 MB budget. The verdicts are pure; the server is a
// thin shell.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from '../shared/log.ts';
import { http } from '../shared/node-http.ts';
import type { Registry } from '../shared/prometheus.ts';
import { setDateHeader } from '../shared/time.ts';
import { errorMessage } from '../shared/errors.ts';

export interface Verdict {
  readonly ok: boolean;
  readonly detail: string;
}

export interface LoopState {
  /** When the sample loop last came round (ms since the epoch), undefined before its first turn. */
  readonly lastTurnAt: number | undefined;
  readonly startedAt: number;
  /** Longest a turn may take before shifud counts as stuck. */
  readonly stallMs: number;
}

/** Live while the sample loop turns: a sampler stuck on a hung filesystem gets the pod restarted. */
export function liveness(state: LoopState, now: number): Verdict {
  const since = state.lastTurnAt ?? state.startedAt;
  const quietMs = now - since;
  return quietMs <= state.stallMs
    ? { ok: true, detail: 'ok' }
    : { ok: false, detail: `the sample loop has not come round for ${Math.round(quietMs / 1000)} s (limit ${Math.round(state.stallMs / 1000)} s)` };
}

export interface ReadyState {
  readonly devicesListed: boolean;
  readonly nodeRegistered: boolean;
  /** The API server is failing calls now (the gate is backing off). */
  readonly apiOutage: boolean;
}

export function readiness(state: ReadyState): Verdict {
  if (!state.devicesListed) return { ok: false, detail: 'listing EdgeDevices' };
  if (!state.nodeRegistered) return { ok: false, detail: 'registering the EdgeNode' };
  if (state.apiOutage) return { ok: false, detail: 'the API server is not answering; backing off' };
  return { ok: true, detail: 'ready' };
}

export interface HealthSource {
  live(): Verdict;
  ready(): Verdict;
  /** The scrape (shared/prometheus.ts). */
  readonly registry: Registry;
}

export interface HealthServer {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

export async function serveHealth(address: string, port: number, source: HealthSource): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    setDateHeader(res);
    const path = (req.url ?? '/').split('?')[0];
    const verdict = path === '/healthz' ? source.live() : path === '/readyz' ? source.ready() : undefined;
    if (verdict !== undefined) {
      res.writeHead(verdict.ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' }).end(verdict.detail);
    } else if (path === '/metrics') {
      res.writeHead(200, { 'content-type': source.registry.contentType }).end(source.registry.metrics());
    } else {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('shifud serves /healthz, /readyz and /metrics');
    }
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => { server.off('error', reject); resolve(); });
  });
  return {
    server, port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => { server.close(() => { resolve(); }); server.closeAllConnections(); }),
  };
}

/** Starts the server, or logs why it cannot (the port is taken) and carries on without it: probing matters more. */
export async function tryServeHealth(address: string, port: number, source: HealthSource, logger: Logger): Promise<HealthServer | undefined> {
  try {
    const served = await serveHealth(address, port, source);
    logger.info({ address, port: served.port }, 'serving /healthz, /readyz, /metrics');
    return served;
  } catch (err) {
    logger.error({ err: errorMessage(err), address, port }, 'cannot serve /healthz, /readyz, /metrics: choose another --health-port (EDGESHIFU_HEALTH_PORT) or --health-address');
    return undefined;
  }
}
