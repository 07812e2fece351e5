// Writing whole replies on node:http: status, headers, a Content-Length, the Date (shared/time.ts
// says why not Node's), the body (which Node leaves out for HEAD). JSON and text carry `charset=utf-8`, as express wrote them before.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { currentHttpDate } from '../../shared/time.ts';

export interface Reply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: OutgoingHttpHeaders;
}

export function send(res: ServerResponse, reply: Reply): void {
  const body = Buffer.from(reply.body, 'utf8');
  res.sendDate = false;
  res.writeHead(reply.status, { ...reply.headers, 'content-type': reply.contentType, 'content-length': body.length, date: currentHttpDate() });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: OutgoingHttpHeaders = {}): void {
  send(res, { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(value), headers });
}
