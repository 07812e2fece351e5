// One TCP connection with a deadline: connect, optionally send a greeting, wait for the first
// bytes. Tells "never connected" (timeout) from "connected but silent" (hung) — a device
// that accepts and hangs. The socket is always destroyed.
import { connect, type Socket } from 'node:net';

export interface ConnectionOptions {
  readonly host: string;
  readonly port: number;
  /** Sent once connected; without it, the exchange ends at connect. */
  readonly greeting?: Buffer;
  /** Bytes to wait for after the greeting. */
  readonly replyBytes?: number;
  readonly signal: AbortSignal;
}

export type ConnectionResult =
  | { readonly kind: 'connected'; readonly reply?: Buffer }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'timeout'; readonly connected: boolean };

export async function exchange(options: ConnectionOptions): Promise<ConnectionResult> {
  if (options.signal.aborted) return { kind: 'timeout', connected: false };
  return new Promise((resolve) => {
    let connected = false;
    let reply = Buffer.alloc(0);
    const socket: Socket = connect({ host: options.host, port: options.port });
    const finish = (result: ConnectionResult): void => {
      options.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(result);
    };
    const onAbort = (): void => { finish({ kind: 'timeout', connected }); };
    options.signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', (error) => { finish({ kind: 'failed', error }); });
    socket.once('close', () => { finish({ kind: 'failed', error: Object.assign(new Error('connection closed'), { code: 'ECONNRESET' }) }); });
    socket.once('connect', () => {
      connected = true;
      if (options.greeting === undefined) finish({ kind: 'connected' });
      else socket.write(options.greeting);
    });
    socket.on('data', (chunk: Buffer) => {
      reply = Buffer.concat([reply, chunk]);
      if (reply.length >= (options.replyBytes ?? 1)) finish({ kind: 'connected', reply });
    });
  });
}
