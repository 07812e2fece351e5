// One loop per telemetry, each on its own initialDelayMs and intervalMs (Shifu parses them and
// polls everything on the global interval). A failed poll is counted, recorded for the phase and
// followed by a longer wait; nothing here can stop the gateway.
import { Backoff, sleep } from '../../shared/backoff.ts';
import type { Logger } from '../../shared/log.ts';
import type { DeviceShifuConfig, Instruction, Telemetry } from '../config/types.ts';
import type { CallInput } from '../device-call.ts';
import type { DriverResponse } from '../drivers/driver.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { DeviceHealth } from '../status/health.ts';
import { payloadOf, pushResult } from './result.ts';
import type { TelemetryPayload } from './pusher.ts';
import { subscriptionLoop, type Subscribe } from './subscription.ts';

export interface TelemetryDeps {
  readonly deviceName: string;
  readonly call: (instruction: Instruction, input: CallInput) => Promise<DriverResponse>;
  readonly probe: (signal: AbortSignal) => Promise<void>;
  /** Present when the driver pushes values (OPC UA): telemetry subscribes instead of polling. */
  readonly subscribe?: Subscribe;
  readonly push: (to: string, payload: TelemetryPayload, signal: AbortSignal) => Promise<void>;
  readonly health: DeviceHealth;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
}

async function poll(telemetry: Telemetry, instruction: Instruction | undefined, deps: TelemetryDeps, signal: AbortSignal): Promise<TelemetryPayload | undefined> {
  if (instruction === undefined) {
    await deps.probe(AbortSignal.any([signal, AbortSignal.timeout(telemetry.timeoutMs || 3000)]));
    return undefined;
  }
  const response = await deps.call(instruction, {
    method: 'GET', query: '', headers: [], body: Buffer.alloc(0), timeoutSeconds: telemetry.timeoutMs / 1000, source: 'telemetry', signal,
  });
  const payload = await payloadOf(telemetry, deps, response);
  if (response.status < 200 || response.status > 299) throw new Error(`${instruction.name} answered ${response.status}: ${payload.body.toString('utf8', 0, 200)}`);
  return payload;
}

/** One poll and its push; true when the device answered well. */
async function once(telemetry: Telemetry, config: DeviceShifuConfig, deps: TelemetryDeps, signal: AbortSignal): Promise<boolean> {
  const instruction = telemetry.instruction === undefined ? undefined : config.instructions.get(telemetry.instruction);
  try {
    const payload = await poll(telemetry, instruction, deps, signal);
    if (signal.aborted) return true;
    deps.health.record('telemetry', true, undefined, telemetry.name);
    deps.metrics.telemetry.inc({ telemetry: telemetry.name, result: 'ok' });
    await pushResult(telemetry, payload, deps, signal);
    return true;
  } catch (err) {
    if (signal.aborted) return true;
    deps.health.record('telemetry', false, (err as Error).message, telemetry.name);
    deps.metrics.telemetry.inc({ telemetry: telemetry.name, result: 'error' });
    deps.logger.warn({ telemetry: telemetry.name, err: (err as Error).message }, 'telemetry poll failed');
    return false;
  }
}

async function loop(telemetry: Telemetry, config: DeviceShifuConfig, deps: TelemetryDeps, signal: AbortSignal): Promise<void> {
  const backoff = new Backoff({ initialMs: telemetry.intervalMs, maxMs: Math.max(telemetry.intervalMs, 60_000) });
  await sleep(telemetry.initialDelayMs, signal);
  while (!signal.aborted) {
    const started = Date.now();
    const ok = await once(telemetry, config, deps, signal);
    if (ok) backoff.reset();
    // Fixed rate: the interval runs from one poll's start to the next; failures add a growing pause.
    const wait = Math.max(0, telemetry.intervalMs - (Date.now() - started)) + (ok ? 0 : backoff.next());
    await sleep(wait, signal);
  }
}

/** Starts every telemetry of `config`; they all stop when `signal` aborts. */
export function startTelemetries(config: DeviceShifuConfig, deps: TelemetryDeps, signal: AbortSignal): Promise<void> {
  return Promise.all(config.telemetries.map((t) => {
    const instruction = t.instruction === undefined ? undefined : config.instructions.get(t.instruction);
    return instruction !== undefined && deps.subscribe !== undefined ? subscriptionLoop({ telemetry: t, instruction, subscribe: deps.subscribe }, deps, signal) : loop(t, config, deps, signal);
  })).then(() => undefined);
}
