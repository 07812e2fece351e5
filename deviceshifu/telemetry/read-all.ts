// A device body, streamed or not, as one Buffer with a size cap.
import type { Readable } from 'node:stream';
import { EdgeshifuError } from '../../shared/errors.ts';

export async function readAll(body: Buffer | Readable, limit: number): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new EdgeshifuError('invalid', `device reply larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
