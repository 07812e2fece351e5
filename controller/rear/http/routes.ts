// The provider's REST routes, FLUIDOS's (fluidos-json.ts): GET /api/v2/flavors (a selector in
// the `selector` query parameter, as JSON), POST /api/v2/flavors/selector (the selector as the
// body), POST /api/v2/reservations and POST /api/v2/transactions/{id}/purchase. Every error is
// one JSON shape with a kind and a message saying what to fix; bodies above 64 KiB are refused.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EdgeshifuError, errorMessage } from '../../../shared/errors.ts';
import type { HttpRoute } from '../../../shared/node-http.ts';
import { HttpProblem, problemOf } from '../../../deviceshifu/http/problem.ts';
import type { Market } from '../market.ts';
import { contractJson, flavourJson, purchaseFromJson, reserveFromJson, selectorFromJson, transactionJson } from './fluidos-json.ts';

export const REAR_PREFIX = '/api/v2/';
const MAX_BODY = 64 * 1024;

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpProblem('too-large', `the body is over ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new EdgeshifuError('invalid', 'the body is empty: send a JSON object');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EdgeshifuError('invalid', `the body is not JSON: ${errorMessage(err)}`);
  }
}

function only(req: IncomingMessage, method: string): void {
  if (req.method !== method) throw new HttpProblem('method-not-allowed', `${req.url ?? ''} takes ${method} only`, { allow: method });
}

async function route(market: Market, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const path = url.pathname.slice(REAR_PREFIX.length);
  if (path === 'flavors') {
    only(req, 'GET');
    const raw = url.searchParams.get('selector');
    let selectorJson: unknown = {};
    if (raw !== null) {
      try { selectorJson = JSON.parse(raw); } catch { throw new EdgeshifuError('invalid', 'the selector query parameter must be JSON: {"flavorType": ..., "filters": {...}}'); }
    }
    reply(res, 200, market.flavours(selectorFromJson(selectorJson)).map(flavourJson));
    return;
  }
  if (path === 'flavors/selector') {
    only(req, 'POST');
    reply(res, 200, market.flavours(selectorFromJson(await readJson(req))).map(flavourJson));
    return;
  }
  if (path === 'reservations') {
    only(req, 'POST');
    reply(res, 201, transactionJson(await market.reserve(reserveFromJson(await readJson(req)))));
    return;
  }
  const purchase = /^transactions\/([A-Za-z0-9._-]{1,253})\/purchase$/.exec(path);
  if (purchase?.[1] !== undefined) {
    only(req, 'POST');
    const signed = await market.purchase(purchaseFromJson(await readJson(req), purchase[1]));
    reply(res, 201, contractJson(signed.contract, signed.signatures));
    return;
  }
  throw new EdgeshifuError('not-found', `no REAR route ${url.pathname}: use /api/v2/flavors, /api/v2/flavors/selector, /api/v2/reservations or /api/v2/transactions/{id}/purchase`);
}

/** The routes, for the controller's server (or a server of their own). */
export function rearRoutes(market: Market): HttpRoute {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith(REAR_PREFIX)) return false;
    try {
      await route(market, req, res, url);
    } catch (err) {
      const problem = problemOf(err);
      if (!res.headersSent) reply(res, problem.status, problem.body, { ...problem.headers });
    }
    return true;
  };
}
