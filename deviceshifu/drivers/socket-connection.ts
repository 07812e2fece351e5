// A persistent TCP connection to a device, kept up in the background with backoff (Shifu's socket
// driver never reconnects after a device reboot), with one request/reply exchange at a time.
// Every wait honours the caller's signal: the wait for the connection's turn, the connect and the
// reply, so a call queued behind a stuck one still ends at its own deadline.
import { connect, type Socket } from 'node:net';
import { Backoff, sleep } from '../../shared/backoff.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import type { HostPort } from './address.ts';
import { deviceError } from './device-errors.ts';

/** The call waiting for a reply, tied to the socket it wrote on: another socket's close or bytes are not its. */
type Waiter = { socket: Socket; resolve: (chunk: Buffer) => void; reject: (err: Error) => void };

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** `promise`, or a rejection as soon as `signal` aborts (already aborted included). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => { reject(abortReason(signal)); };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
      (err: unknown) => { signal.removeEventListener('abort', onAbort); reject(err instanceof Error ? err : new Error(String(err))); },
    );
  });
}

const CONNECT_TIMEOUT_MS = 10_000;

export class DeviceConnection {
  private readonly target: HostPort;
  private readonly where: string;
  private readonly logger: Logger;
  private socket: Socket | undefined;
  /** The one connect in flight, shared by the keeper and the calls (never two at once). */
  private opening: Promise<Socket> | undefined;
  private waiter: Waiter | undefined;
  /** Resolves when the call before the last one in line is done. */
  private turn: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly closed = new Set<() => void>();

  constructor(target: HostPort, logger: Logger) {
    this.target = target;
    this.where = `${target.host}:${target.port}`;
    this.logger = logger;
  }

  get connected(): boolean {
    return this.socket !== undefined;
  }

  /** Keeps a connection open until `signal` aborts, reconnecting with backoff. */
  async keep(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff({ initialMs: 200, maxMs: 10_000 });
    const wake = (): void => { for (const resolve of this.closed) resolve(); this.closed.clear(); };
    signal.addEventListener('abort', wake, { once: true });
    while (!signal.aborted) {
      try {
        const socket = await untilAborted(this.connection(), signal);
        backoff.reset();
        await new Promise<void>((resolve) => { if (socket.destroyed || signal.aborted) resolve(); else this.closed.add(resolve); });
      } catch (err) {
        this.logger.debug({ err: (err as Error).message }, 'socket device not reachable; retrying');
        await sleep(backoff.next(), signal);
      }
    }
    this.stopped = true;
    this.drop(this.socket);
  }

  /** Writes `bytes` and resolves with the first chunk the device sends back; one exchange at a time. */
  async exchange(bytes: Buffer, signal: AbortSignal): Promise<Buffer> {
    const before = this.turn;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => { done = resolve; });
    this.turn = before.then(() => mine);
    try {
      await untilAborted(before, signal);
      const socket = await untilAborted(this.connection(), signal);
      return await this.exchangeOn(socket, bytes, signal);
    } finally {
      done();
    }
  }

  private exchangeOn(socket: Socket, bytes: Buffer, signal: AbortSignal): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const settle = (): void => { this.waiter = undefined; signal.removeEventListener('abort', onAbort); };
      const onAbort = (): void => {
        settle();
        // A reply may still come: it would be read as the next call's. The next call opens afresh.
        this.drop(socket);
        reject(abortReason(signal));
      };
      this.waiter = { socket, resolve: (chunk) => { settle(); resolve(chunk); }, reject: (err) => { settle(); reject(err); } };
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) { onAbort(); return; }
      socket.write(bytes);
    });
  }

  /** Forgets `socket` at once (the next call must not write on it) and closes it. */
  private drop(socket: Socket | undefined): void {
    if (socket === undefined) return;
    if (this.socket === socket) this.socket = undefined;
    socket.destroy();
  }

  private connection(): Promise<Socket> {
    if (this.socket !== undefined) return Promise.resolve(this.socket);
    this.opening ??= this.open().finally(() => { this.opening = undefined; });
    return this.opening;
  }

  private async open(): Promise<Socket> {
    const where = this.where;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: this.target.host, port: this.target.port, timeout: CONNECT_TIMEOUT_MS });
      s.once('connect', () => { s.setTimeout(0); resolve(s); });
      s.once('timeout', () => { s.destroy(); reject(new EdgeshifuError('unavailable', `device at ${where} did not accept a connection within ${String(CONNECT_TIMEOUT_MS / 1000)} s`)); });
      s.once('error', (err) => { s.destroy(); reject(deviceError(err, where)); });
    });
    if (this.stopped) {
      socket.destroy();
      throw new EdgeshifuError('unavailable', `connection to the device at ${where} stopped`);
    }
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => { if (this.waiter?.socket === socket) this.waiter.resolve(chunk); });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (this.socket === socket) this.socket = undefined;
      if (this.waiter?.socket === socket) this.waiter.reject(new EdgeshifuError('unavailable', `device at ${where} closed the connection before answering`));
      for (const resolve of this.closed) resolve();
      this.closed.clear();
    });
    this.socket = socket;
    this.logger.info({ device: where }, 'socket device connected');
    return socket;
  }
}
