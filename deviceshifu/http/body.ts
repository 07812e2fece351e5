// Request bodies read into memory up to a limit: a device call needs the whole body (MQTT, socket,
// command line), and an unbounded body would let one caller exhaust deviceShifu's 50 MB.
import type { IncomingMessage } from 'node:http';
import { HttpProblem } from './problem.ts';

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem('too-large', `request body is larger than the limit of ${limit} bytes (setting bodyLimitBytes)`, { connection: 'close' });
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
