// The SSE fan-out for GET /edgemap/events: one subscription to the edgeMap (each change is
// serialised once), a snapshot first for every client, heartbeats, and bounded buffering: a client
// that falls more than `maxBufferedBytes` behind is dropped, and its EventSource reconnects to a
// fresh snapshot (cheaper than queueing changes it would replay).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../shared/log.ts';
import type { EdgeMapChange, EdgeMapListener } from '../model.ts';
import { toSnapshot } from '../snapshot.ts';
import type { EdgeMapView } from '../view.ts';
import { SSE_HEARTBEAT, sseEvent, sseRetry } from './sse-format.ts';

export interface EdgeMapSource extends EdgeMapView {
  subscribe(listener: EdgeMapListener): () => void;
}

export interface StreamOptions {
  readonly heartbeatMs: number;
  readonly maxBufferedBytes: number;
  readonly retryMs: number;
  readonly logger?: Logger;
  /** Told how many clients are attached, and of each slow client dropped (metrics). */
  readonly onClients?: (count: number) => void;
  readonly onDropped?: () => void;
}

interface Client {
  readonly res: ServerResponse;
  /** Bytes that may sit in the socket's buffer: the snapshot plus the allowance. */
  readonly limit: number;
}

export class EdgeMapStream {
  readonly #map: EdgeMapSource;
  readonly #options: StreamOptions;
  readonly #clients = new Set<Client>();
  #unsubscribe: (() => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(map: EdgeMapSource, options: StreamOptions) {
    this.#map = map;
    this.#options = options;
  }

  get clientCount(): number { return this.#clients.size; }

  /** Serves one EventSource until it goes away or close() is called. */
  attach(req: IncomingMessage, res: ServerResponse): void {
    if (this.#closed) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('the edgeMap stream is shutting down\n');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    const snapshot = sseEvent('snapshot', this.#map.seq, JSON.stringify(toSnapshot(this.#map)));
    const client: Client = { res, limit: Buffer.byteLength(snapshot) + this.#options.maxBufferedBytes };
    res.write(sseRetry(this.#options.retryMs) + snapshot);
    this.#clients.add(client);
    this.#started();
    res.on('close', () => { this.#detach(client); });
    req.socket.setNoDelay(true);
  }

  /** Ends every stream and refuses new ones (the server is stopping). */
  close(): void {
    this.#closed = true;
    for (const client of [...this.#clients]) client.res.end();
    this.#stop();
  }

  #started(): void {
    this.#options.onClients?.(this.#clients.size);
    this.#unsubscribe ??= this.#map.subscribe((change) => { this.#broadcast(change); });
    this.#heartbeat ??= setInterval(() => { this.#sendAll(SSE_HEARTBEAT); }, this.#options.heartbeatMs).unref();
  }

  #detach(client: Client): void {
    if (!this.#clients.delete(client)) return;
    this.#options.onClients?.(this.#clients.size);
    if (this.#clients.size === 0) this.#stop();
  }

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #broadcast(change: EdgeMapChange): void {
    this.#sendAll(sseEvent('change', change.seq, JSON.stringify(change)));
  }

  #sendAll(text: string): void {
    for (const client of [...this.#clients]) {
      if (client.res.writableLength > client.limit) this.#drop(client);
      else client.res.write(text);
    }
  }

  #drop(client: Client): void {
    this.#options.logger?.warn({ bufferedBytes: client.res.writableLength }, 'edgeMap stream client too slow: dropped, it will reconnect to a fresh snapshot');
    this.#options.onDropped?.();
    client.res.destroy();
    this.#detach(client);
  }
}
