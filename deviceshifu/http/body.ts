// Request bodies read into memory up to a limit: a device call needs the whole body (MQTT, socket,
// command line), and an unbounded body would let one caller exhaust deviceShifu's 50 MB.
import type { IncomingMessage } from 'node:http';
import { HttpProblem } from './problem.ts';

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem(413, 'invalid', `request body is larger than the limit of ${limit} bytes (setting bodyLimitBytes)`, { connection: 'close' });
}

export const NO_BODY = Buffer.alloc(0);

/** A request that declares no body (no Content-Length, or 0, and no Transfer-Encoding): nothing to read. */
export function hasNoBody(req: IncomingMessage): boolean {
  const { headers } = req;
  return (headers['content-length'] === undefined || headers['content-length'] === '0') && headers['transfer-encoding'] === undefined;
}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
