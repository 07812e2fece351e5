// Sends a device's reply to the caller. Replies that end within 64 KiB (most device answers) go out
// in one write with a Content-Length; longer ones are streamed with backpressure as they arrive.
// A device failing before anything was sent is a 502; after that the reply can only be cut short.
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { DriverResponse } from '../drivers/driver.ts';

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

/** Status and headers, sent with the first write: a whole body then goes out with its Content-Length. */
function setHead(res: ServerResponse, status: number, headers: Readonly<Record<string, string>>): ServerResponse {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  return res;
}

export async function relay(res: ServerResponse, reply: DriverResponse, what: string): Promise<void> {
  const { status, headers, body } = reply;
  if (Buffer.isBuffer(body)) {
    setHead(res, status, headers).end(body);
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
      setHead(res, status, headers).end(Buffer.concat(head));
      return;
    }
    head.push(next.value);
    size += next.value.length;
  }
  setHead(res, status, headers);
  await stream(res, head, iterator);
}
