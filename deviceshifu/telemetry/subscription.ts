// Telemetry for a driver that pushes values (OPC UA subscriptions): no polling. Each value the
// device sends is evidence for the phase and is pushed like a poll's result; a keep-alive without
// a value is evidence too, so an unchanging value does not make the phase stale. A failure is
// logged once per run of failures, not once per notification.
import { sleep } from '../../shared/backoff.ts';
import type { Instruction, Telemetry } from '../config/types.ts';
import type { SubscriptionSink } from '../drivers/driver.ts';
import { payloadOf, pushResult } from './result.ts';
import type { TelemetryDeps } from './runner.ts';

export type Subscribe = (instruction: Instruction, intervalMs: number, sink: SubscriptionSink, signal: AbortSignal) => void;

export interface SubscribedTelemetry {
  readonly telemetry: Telemetry;
  readonly instruction: Instruction;
  readonly subscribe: Subscribe;
}

export async function subscriptionLoop({ telemetry, instruction, subscribe }: SubscribedTelemetry, deps: TelemetryDeps, signal: AbortSignal): Promise<void> {
  await sleep(telemetry.initialDelayMs, signal);
  if (signal.aborted) return;
  let failing = false;
  const ok = (): void => {
    failing = false;
    deps.health.record('telemetry', true, undefined, telemetry.name);
  };
  subscribe(instruction, telemetry.intervalMs, {
    value(response) {
      ok();
      deps.metrics.telemetry.inc({ telemetry: telemetry.name, result: 'ok' });
      void payloadOf(telemetry, deps, response).then((payload) => pushResult(telemetry, payload, deps, signal));
    },
    alive: ok,
    error(err) {
      deps.health.record('telemetry', false, err.message, telemetry.name);
      deps.metrics.telemetry.inc({ telemetry: telemetry.name, result: 'error' });
      if (!failing) deps.logger.warn({ telemetry: telemetry.name, err: err.message }, 'telemetry subscription failed');
      failing = true;
    },
  }, signal);
  await new Promise<void>((resolve) => { signal.addEventListener('abort', () => { resolve(); }, { once: true }); });
}
