// Sends a device's reply to the caller. Replies that end within 64 KiB (most device answers) go out
// in one write with a Content-Length; longer ones are streamed with backpressure as they arrive.
// A device failing before anything was sent is a 502; after that the reply can only be cut short.
import type { Response } from 'express';
import { once } from 'node:events';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { DriverResponse } from '../drivers/driver.ts';

export const BUFFER_BELOW = 64 * 1024;

/** Thrown when the device failed after the headers went out. */
export class CutShort extends Error {
  override readonly name = 'CutShort';
}

async function stream(res: Response, head: readonly Buffer[], rest: AsyncIterator<Buffer>): Promise<void> {
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

export async function relay(res: Response, reply: DriverResponse, what: string): Promise<void> {
  const { status, headers, body } = reply;
  if (Buffer.isBuffer(body)) {
    res.status(status).set(headers).end(body);
    return;
  }
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
      res.status(status).set(headers).end(Buffer.concat(head));
      return;
    }
    head.push(next.value);
    size += next.value.length;
  }
  res.status(status).set(headers);
  await stream(res, head, iterator);
}
