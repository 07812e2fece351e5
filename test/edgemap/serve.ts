// A real HTTP server on 127.0.0.1:0 with the edgeMap router mounted at `/`, as the controller does.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { edgeMapRouter, type EdgeMapRouterOptions } from '../../edgemap/http/router.ts';
import type { EdgeMap } from '../../edgemap/index.ts';

export interface Served {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

export async function serve(map: EdgeMap, options: EdgeMapRouterOptions): Promise<Served> {
  const route = edgeMapRouter(map, options);
  const server = createServer((req, res) => {
    void (async () => { if (!await route(req, res)) res.writeHead(404).end(); })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => { resolve(); });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

export interface SseEvent { readonly id?: string; readonly event?: string; readonly data?: string; readonly comment?: string }

/** Reads a server-sent-events body, event by event (comments included, as `comment`). */
export class SseReader {
  readonly events: SseEvent[] = [];
  #buffer = '';
  #ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    void this.#pump(body);
  }

  get ended(): boolean { return this.#ended; }

  async #pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.#buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
          this.events.push(parse(this.#buffer.slice(0, end)));
          this.#buffer = this.#buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by the test, or dropped by the server: `ended` tells
    }
    this.#ended = true;
  }
}

function parse(block: string): SseEvent {
  const event: Record<string, string> = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) event.comment = line.slice(1).trim();
    const match = /^(id|event|data|retry): ?(.*)$/.exec(line);
    if (match?.[1] !== undefined) event[match[1]] = match[2] ?? '';
  }
  return event;
}
