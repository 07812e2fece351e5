// One Modbus line to one device, used by one request at a time: Modbus RTU has no transaction ids
// at all, and many TCP devices and gateways answer only one request at a time, so requests wait
// their turn in a queue. A caller that gives up (its deadline) gets its answer at once, but its
// request keeps the line until the device answered or timeoutMs passed, so a late reply is never
// taken for the next request's. The connection opens on demand and again after any failure.
import modbusSerial from 'modbus-serial';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import { abortable } from './abortable.ts';
import { modbusException } from './modbus-exceptions.ts';

export type LinkTarget =
  | { readonly mode: 'TCP'; readonly host: string; readonly port: number }
  | { readonly mode: 'RTU'; readonly path: string; readonly baudRate: number; readonly parity: 'none' | 'even' | 'odd'; readonly stopBits: 1 | 2; readonly dataBits: 7 | 8 };

export interface LinkOptions {
  readonly target: LinkTarget;
  readonly unitId: number;
  readonly timeoutMs: number;
  readonly logger: Logger;
}

export function describeTarget(target: LinkTarget): string {
  return target.mode === 'TCP' ? `Modbus TCP device at ${target.host}:${target.port}` : `Modbus RTU line ${target.path}`;
}

/** The library's client (modbus-serial is CommonJS: its class is the module and its default). */
const ModbusClient = modbusSerial.default;
type ModbusRTU = InstanceType<typeof ModbusClient>;

interface LibraryError extends Error { modbusCode?: number; errno?: string; code?: string }

export type { ModbusRTU };

export class ModbusLink {
  private client: ModbusRTU | undefined;
  /** Rejects the request on the line when the connection closes under it. */
  private onLost: ((err: Error) => void) | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly where: string;
  private readonly options: LinkOptions;

  constructor(options: LinkOptions) {
    this.options = options;
    this.where = describeTarget(options.target);
  }

  get connected(): boolean {
    return this.client?.isOpen === true;
  }

  /** Runs `op` alone on the line; `what` names it in errors ("reading holding 40 x2"). */
  run<T>(what: string, op: (client: ModbusRTU) => Promise<T>, signal: AbortSignal): Promise<T> {
    const turn = this.tail.then(async () => {
      signal.throwIfAborted();
      const client = await this.open();
      return this.guarded(what, op(client));
    });
    this.tail = turn.catch(() => undefined);
    return abortable(turn, signal);
  }

  /** Opens the line if it is not open (the probe). */
  async check(signal: AbortSignal): Promise<void> {
    await this.run('opening the line', () => Promise.resolve(), signal);
  }

  close(): void {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) client.close(() => undefined);
  }

  private async open(): Promise<ModbusRTU> {
    if (this.client?.isOpen === true) return this.client;
    this.close();
    const { target, unitId, timeoutMs } = this.options;
    const client = new ModbusClient();
    client.on('error', () => undefined); // a failure reaches the request in flight; the line is reopened for the next one
    let timer: NodeJS.Timeout | undefined;
    // a device that never accepts is unreachable (502), as a refused connection is; 504 is for one that accepted and then did not answer
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => { reject(new EdgeshifuError('unavailable', `${this.where} did not accept a connection within ${timeoutMs} ms`)); }, timeoutMs);
    });
    try {
      const opening = target.mode === 'TCP'
        ? client.connectTCP(target.host, { port: target.port })
        : client.connectRTUBuffered(target.path, { baudRate: target.baudRate, parity: target.parity, stopBits: target.stopBits, dataBits: target.dataBits });
      await Promise.race([opening, deadline]);
    } catch (err) {
      client.close(() => undefined);
      throw this.failure(err, 'opening the line');
    } finally {
      clearTimeout(timer);
    }
    client.setID(unitId);
    client.setTimeout(timeoutMs);
    client.on('close', () => {
      // a line we closed ourselves has nothing in flight; only the current one can lose a request
      if (this.client !== client) return;
      this.client = undefined;
      this.onLost?.(new EdgeshifuError('unavailable', `${this.where} closed the connection before answering`));
    });
    this.options.logger.info({ device: this.where, unitId }, 'Modbus line open');
    this.client = client;
    return client;
  }

  private async guarded<T>(what: string, work: Promise<T>): Promise<T> {
    const lost = new Promise<never>((_resolve, reject) => { this.onLost = reject; });
    try {
      return await Promise.race([work, lost]);
    } catch (err) {
      const failure = this.failure(err, what);
      // anything but an exception response leaves the line in doubt: open it anew next time
      if (!(err as LibraryError).modbusCode) this.close();
      throw failure;
    } finally {
      this.onLost = undefined;
      work.catch(() => undefined);
      lost.catch(() => undefined);
    }
  }

  private failure(err: unknown, what: string): Error {
    if (err instanceof EdgeshifuError) return err;
    const e = err as LibraryError;
    if (typeof e.modbusCode === 'number') return modbusException(e.modbusCode, `${what} on unit ${this.options.unitId}`);
    if (e.errno === 'ETIMEDOUT' || e.message === 'Timed out') {
      return new EdgeshifuError('timeout', `${this.where} sent no answer ${what} within ${this.options.timeoutMs} ms (a device with another unit id than ${this.options.unitId} stays silent)`);
    }
    const code = e.code ?? e.errno ?? '';
    const why = code === 'ECONNREFUSED' ? 'refused the connection'
      : code === 'ENOENT' || /No such file/.test(e.message) ? 'does not exist'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'has a host name that does not resolve'
          : `failed ${what}: ${e.message}`;
    return new EdgeshifuError('unavailable', `${this.where} ${why}`, { cause: err });
  }
}
