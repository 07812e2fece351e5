// The frame every HTTP mock device shares (Shifu's mockdevice): `/health` → "Healthy", one route per
// function, anything else 404. Routes are plain functions of the query, so each device is a table.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockReply {
  readonly status?: number;
  readonly body: string;
}

export type MockRoute = (query: URLSearchParams, method: string) => MockReply;

export interface RunningMock {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** host:port, as an EdgeDevice's spec.address. */
  readonly address: string;
  close(): Promise<void>;
}

/** Shifu's mock status values. */
export const STATUSES = ['Running', 'Idle', 'Busy', 'Error'] as const;

export function pick<T>(values: readonly T[], random: () => number = Math.random): T {
  return values[Math.floor(random() * values.length)] as T;
}

export function randomInt(min: number, maxExclusive: number, random: () => number = Math.random): number {
  return min + Math.floor(random() * (maxExclusive - min));
}

export const statusRoute: MockRoute = () => ({ body: pick(STATUSES) });
const healthRoute: MockRoute = () => ({ body: 'Healthy' });

export async function listen(server: Server, name: string, host: string, port: number): Promise<RunningMock> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => { server.off('error', reject); resolve(); });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    name, host, port: bound, address: `${host}:${bound}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

export async function startHttpMock(name: string, routes: Readonly<Record<string, MockRoute>>, host: string, port: number): Promise<RunningMock> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const route: MockRoute | undefined = url.pathname === '/health' ? healthRoute : routes[url.pathname.slice(1)];
    req.resume();
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    const reply = route(url.searchParams, req.method ?? 'GET');
    res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain; charset=utf-8' }).end(reply.body);
  });
  return listen(server, name, host, port);
}
