// Request bodies read into memory up to a limit: a device call needs the whole body (MQTT, socket,
// command line), and an unbounded body would let one caller exhaust deviceShifu's 50 MB.
import type { IncomingMessage } from 'node:http';
import { HttpProblem } from './problem.ts';

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem('too-large', `request body is larger than the limit of ${limit} bytes (setting bodyLimitBytes)`, { connection: 'close' });
}

export const NO_BODY = Buffer.alloc(0);

/**
 * A request that declares no body (no Transfer-Encoding, no Content-Length but 0): nothing to read.
 * Read from the raw list: `req.headers` would build the header object on first use.
 */
export function hasNoBody(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') return false;
    if (name.length === 14 && name.toLowerCase() === 'content-length' && raw[i + 1] !== '0') return false;
  }
  return true;
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
