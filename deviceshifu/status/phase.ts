// The EdgeDevice phase from what deviceShifu has seen (pure). Shifu marks a device without
// telemetry Failed; here such a device is judged by its requests and probes,
// and an unreachable one is Unknown, not Failed.
import type { EdgeDevicePhase } from '../../shared/crds/edgedevice.ts';
import type { HealthSnapshot, Outcome } from './health.ts';

export interface PhaseOptions {
  readonly now: number;
  readonly hasTelemetry: boolean;
  /** Evidence older than this says nothing about the device any more. */
  readonly staleMs: number;
}

function latest(...outcomes: Array<Outcome | undefined>): Outcome | undefined {
  return outcomes.reduce<Outcome | undefined>((best, o) => (o !== undefined && (best === undefined || o.at >= best.at) ? o : best), undefined);
}

/**
 * | telemetry | last evidence     | phase   |
 * |-----------|-------------------|---------|
 * | any       | none yet          | Pending |
 * | any       | older than stale  | Unknown |
 * | yes       | poll ok           | Running |
 * | yes       | poll failed       | Failed  |
 * | no        | request/probe ok  | Running |
 * | no        | request/probe bad | Unknown |
 */
export function judgePhase(snapshot: HealthSnapshot, options: PhaseOptions): EdgeDevicePhase {
  const evidence = options.hasTelemetry ? snapshot.telemetry : latest(snapshot.request, snapshot.probe);
  if (evidence === undefined) return 'Pending';
  if (options.now - evidence.at > options.staleMs) return 'Unknown';
  if (evidence.ok) return 'Running';
  return options.hasTelemetry ? 'Failed' : 'Unknown';
}
