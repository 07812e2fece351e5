// A persistent TCP connection to a device, kept up in the background with backoff (Shifu's socket
// driver never reconnects after a device reboot), with one request/reply exchange at a time.
import { connect, type Socket } from 'node:net';
import { Backoff, sleep } from '../../shared/backoff.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import type { HostPort } from './address.ts';
import { deviceError } from './device-errors.ts';

type Waiter = { resolve: (chunk: Buffer) => void; reject: (err: Error) => void };

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

export class DeviceConnection {
  private readonly target: HostPort;
  private readonly logger: Logger;
  private socket: Socket | undefined;
  private waiter: Waiter | undefined;
  private lock: Promise<unknown> = Promise.resolve();
  private readonly closed = new Set<() => void>();

  constructor(target: HostPort, logger: Logger) {
    this.target = target;
    this.logger = logger;
  }

  get connected(): boolean {
    return this.socket !== undefined;
  }

  /** Keeps a connection open until `signal` aborts, reconnecting with backoff. */
  async keep(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff({ initialMs: 200, maxMs: 10_000 });
    while (!signal.aborted) {
      try {
        const socket = this.socket ?? await this.open(signal);
        backoff.reset();
        await new Promise<void>((resolve) => { if (socket.destroyed) resolve(); else this.closed.add(resolve); });
      } catch (err) {
        this.logger.debug({ err: (err as Error).message }, 'socket device not reachable; retrying');
        await sleep(backoff.next(), signal);
      }
    }
    this.socket?.destroy();
  }

  /** Writes `bytes` and resolves with the first chunk the device sends back. */
  async exchange(bytes: Buffer, signal: AbortSignal): Promise<Buffer> {
    const run = this.lock.then(() => this.exchangeNow(bytes, signal));
    this.lock = run.catch(() => undefined);
    return run;
  }

  private async exchangeNow(bytes: Buffer, signal: AbortSignal): Promise<Buffer> {
    signal.throwIfAborted();
    const socket = this.socket ?? await this.open(signal);
    return new Promise<Buffer>((resolve, reject) => {
      const onAbort = (): void => {
        // A reply may still come: it would be read as the next request's. Start afresh.
        socket.destroy();
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const done = (): void => { this.waiter = undefined; signal.removeEventListener('abort', onAbort); };
      this.waiter = { resolve: (chunk) => { done(); resolve(chunk); }, reject: (err) => { done(); reject(err); } };
      socket.write(bytes);
    });
  }

  private async open(signal: AbortSignal): Promise<Socket> {
    const where = `${this.target.host}:${this.target.port}`;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: this.target.host, port: this.target.port, signal });
      s.once('connect', () => { resolve(s); });
      s.once('error', (err) => { s.destroy(); reject(deviceError(err, where)); });
    });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => { this.waiter?.resolve(chunk); });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (this.socket === socket) this.socket = undefined;
      this.waiter?.reject(new EdgeshifuError('unavailable', `device at ${where} closed the connection before answering`));
      for (const resolve of this.closed) resolve();
      this.closed.clear();
    });
    this.socket = socket;
    this.logger.info({ device: where }, 'socket device connected');
    return socket;
  }
}
