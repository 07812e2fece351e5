// One device call with its deadline, its latency metric and its health evidence: the same path
// for a caller's request and a telemetry poll. The deadline covers the whole exchange, streamed
// body included, and becomes a 'timeout' error whatever the driver threw when it was cut off.
import { EdgeshifuError } from '../shared/errors.ts';
import type { Instruction } from './config/types.ts';
import type { Driver, DriverResponse } from './drivers/driver.ts';
import type { RawHeaders } from './drivers/headers.ts';
import type { GatewayMetrics } from './metrics.ts';
import type { DeviceHealth, EvidenceSource } from './status/health.ts';

export interface CallInput {
  readonly method: string;
  /** As sent, with its `?` (or ''), without deviceShifu's `timeout`. */
  readonly query: string;
  readonly headers: RawHeaders;
  readonly body: Buffer;
  readonly timeoutSeconds: number;
  readonly source: Exclude<EvidenceSource, 'probe'>;
  /** The caller going away. */
  readonly signal?: AbortSignal;
  /** Instead of `signal`: the caller's own controller, aborted when it goes away; the deadline aborts it too (no second controller, no listener). */
  readonly stop?: AbortController;
}

export interface CallDeps {
  readonly driver: () => Driver | undefined;
  /** The EdgeDevice's name, so a device failure names the device beside its address. */
  readonly deviceName?: () => string | undefined;
  readonly metrics: GatewayMetrics;
  readonly health: DeviceHealth;
}

/** Errors that say something about the device (not about the caller's request). */
function isDeviceFailure(err: unknown): boolean {
  return err instanceof EdgeshifuError && (err.kind === 'unavailable' || err.kind === 'timeout');
}

/** "device at 10.0.0.5:80 refused …" → "device thermo at 10.0.0.5:80 refused …"; a message not about "device …" gets the name in front. */
export function namingDevice(err: unknown, name: string | undefined): unknown {
  if (name === undefined || !isDeviceFailure(err)) return err;
  const { kind, message } = err as EdgeshifuError;
  if (message.includes(name)) return err;
  const named = message.startsWith('device ') ? `device ${name} ${message.slice('device '.length)}` : `device ${name}: ${message}`;
  return new EdgeshifuError(kind, named, { cause: err });
}

/** A call's deadline and its listener on the caller's signal, kept on one object (no closures per call). */
class CallWatch {
  deadlinePassed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly stop: AbortController;
  private readonly signal: AbortSignal | undefined;

  constructor(stop: AbortController, timeoutSeconds: number, signal: AbortSignal | undefined) {
    this.stop = stop;
    this.signal = signal;
    if (timeoutSeconds > 0) this.timer = setTimeout(onDeadline, timeoutSeconds * 1000, this);
    // `this` as the listener object: its handleEvent is called, no function made per call
    signal?.addEventListener('abort', this, { once: true });
  }

  passed(): void {
    this.deadlinePassed = true;
    this.stop.abort();
  }

  handleEvent(): void {
    this.stop.abort();
  }

  release(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this);
  }
}

function onDeadline(watch: CallWatch): void {
  watch.passed();
}

function observe(deps: CallDeps, instruction: Instruction, outcome: string, started: number): void {
  deps.metrics.deviceLatency.observe({ instruction: instruction.name, outcome }, (performance.now() - started) / 1000);
}

export async function callDevice(deps: CallDeps, instruction: Instruction, input: CallInput): Promise<DriverResponse> {
  const driver = deps.driver();
  if (driver === undefined) throw new EdgeshifuError('unavailable', 'deviceShifu has no EdgeDevice to talk to yet (not found, or its protocol failed to start)');
  // One controller for both the deadline and the caller leaving (cheaper than AbortSignal.any per call).
  const stop = input.stop ?? new AbortController();
  const watch = new CallWatch(stop, input.timeoutSeconds, input.signal);
  const started = performance.now();
  try {
    const response = await driver.call(instruction, { method: input.method, query: input.query, headers: input.headers, body: input.body, timeoutSeconds: input.timeoutSeconds, signal: stop.signal });
    observe(deps, instruction, 'ok', started);
    // A telemetry poll judges the answer itself (a 500 from a health instruction is a failure).
    if (input.source === 'request') deps.health.record('request', true);
    if (Buffer.isBuffer(response.body)) watch.release();
    else response.body.once('close', () => { watch.release(); });
    return response;
  } catch (err) {
    watch.release();
    const error = namingDevice(watch.deadlinePassed
      ? new EdgeshifuError('timeout', `device did not answer ${instruction.name} within ${input.timeoutSeconds} s (raise ?timeout= or defaultTimeoutSeconds)`, { cause: err })
      : err, deps.deviceName?.());
    observe(deps, instruction, error instanceof EdgeshifuError ? error.kind : 'internal', started);
    if (input.source === 'request' && isDeviceFailure(error)) deps.health.record('request', false, (error as Error).message);
    throw error;
  }
}
