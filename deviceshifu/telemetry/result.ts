// A telemetry's result, whichever way it came (a poll's reply, or a value the driver pushed):
// the payload read from the device's reply, and its push to the telemetry service, counted.
import type { Telemetry } from '../config/types.ts';
import type { DriverResponse } from '../drivers/driver.ts';
import { headerValue } from '../drivers/headers.ts';
import type { TelemetryPayload } from './pusher.ts';
import { readAll } from './read-all.ts';
import type { TelemetryDeps } from './runner.ts';

/** A device reply larger than this is cut: telemetry is a reading, not a transfer. */
export const MAX_TELEMETRY_BYTES = 1 << 20;

/** The payload of one reading, with the device's content type when it gave one. */
export async function payloadOf(telemetry: Telemetry, deps: Pick<TelemetryDeps, 'deviceName'>, response: DriverResponse): Promise<TelemetryPayload> {
  const body = await readAll(response.body, MAX_TELEMETRY_BYTES);
  const contentType = headerValue(response.headers, 'content-type');
  return { deviceName: deps.deviceName, telemetry: telemetry.name, body, ...(contentType ? { contentType } : {}) };
}

/** Pushes a reading where the telemetry says; a failed push is counted and logged, never thrown. */
export async function pushResult(telemetry: Telemetry, payload: TelemetryPayload | undefined, deps: TelemetryDeps, signal: AbortSignal): Promise<void> {
  if (telemetry.pushTo === undefined || payload === undefined) return;
  try {
    await deps.push(telemetry.pushTo, payload, signal);
    deps.metrics.telemetryPush.inc({ telemetry: telemetry.name, result: 'ok' });
  } catch (err) {
    deps.metrics.telemetryPush.inc({ telemetry: telemetry.name, result: 'error' });
    deps.logger.warn({ telemetry: telemetry.name, to: telemetry.pushTo, err: (err as Error).message }, 'telemetry push failed');
  }
}
