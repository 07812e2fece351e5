// Sends a device's reply to the caller: status and headers in one writeHead from the raw list the
// driver gave (no header object), then the body. A whole body (drivers read short replies whole)
// goes out with the head in one write; a stream is relayed with backpressure as it arrives.
// A device failing before anything was sent is a 502; after that the reply can only be cut short.
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { EdgeshifuError } from '../../shared/errors.ts';
import { currentHttpDate } from '../../shared/time.ts';
import type { DriverResponse } from '../drivers/driver.ts';
import { headerValue } from '../drivers/headers.ts';

export const BUFFER_BELOW = 64 * 1024;

/** Thrown when the device failed after the headers went out. */
export class CutShort extends Error {
  override readonly name = 'CutShort';
}

async function stream(res: ServerResponse, head: readonly Buffer[], rest: AsyncIterator<Buffer>): Promise<void> {
  for (const chunk of head) res.write(chunk);
  for (;;) {
    let next: IteratorResult<Buffer>;
    try {
      next = await rest.next();
    } catch (err) {
      throw new CutShort((err as Error).message, { cause: err });
    }
    if (next.done === true) break;
    if (!res.write(next.value)) await once(res, 'drain');
  }
  res.end();
}

/**
 * Status and headers (with the Date: the server's own is off), sent with the first write; with
 * `length`, a Content-Length unless the device gave one (the head is rendered here, so Node
 * cannot add it at end()).
 */
export function writeHead(res: ServerResponse, reply: DriverResponse, length?: number): ServerResponse {
  const { status, headers } = reply;
  res.sendDate = false;
  const framed = length === undefined || headerValue(headers, 'content-length') !== undefined;
  // the device's Date when it sent one, else ours
  const dated = headerValue(headers, 'date') !== undefined;
  if (Array.isArray(headers)) {
    const own: string[] = [];
    if (!dated) own.push('Date', currentHttpDate());
    if (!framed) own.push('Content-Length', String(length));
    res.writeHead(status, own.length === 0 ? headers as string[] : (headers as string[]).concat(own));
  } else {
    res.writeHead(status, { ...(headers as Readonly<Record<string, string>>), ...(dated ? {} : { date: currentHttpDate() }), ...(framed ? {} : { 'content-length': String(length) }) });
  }
  return res;
}

async function relayStream(res: ServerResponse, reply: DriverResponse, body: Readable, what: string): Promise<void> {
  const iterator = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0;
  while (size <= BUFFER_BELOW) {
    let next: IteratorResult<Buffer>;
    try {
      next = await iterator.next();
    } catch (err) {
      throw new EdgeshifuError('unavailable', `device closed the connection in the middle of its reply to ${what}`, { cause: err });
    }
    if (next.done === true) {
      const whole = Buffer.concat(head);
      writeHead(res, reply, whole.length).end(whole);
      return;
    }
    head.push(next.value);
    size += next.value.length;
  }
  writeHead(res, reply);
  await stream(res, head, iterator);
}

/** Resolves once the reply is written (a whole body) or relayed to its end (a stream). */
export function relay(res: ServerResponse, reply: DriverResponse, what: string): Promise<void> | undefined {
  if (Buffer.isBuffer(reply.body)) {
    writeHead(res, reply, reply.body.length).end(reply.body);
    return undefined;
  }
  return relayStream(res, reply, reply.body, what);
}
