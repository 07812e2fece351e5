// EdgeDevice status as the controller sees it (pure): its conditions, the phase it may set, and
// whether anything changed, so status is written once per change (Shifu wrote
// every device every second).
import type { Condition } from '../shared/crds/schema.ts';
import type { EdgeDevicePhase, EdgeDeviceStatus } from '../shared/crds/edgedevice.ts';

/**
 * Code-point order: deterministic, which is all a comparison needs. localeCompare would load ICU's
 * collation data into the process (~3 MB RSS) for no benefit.
 */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Conditions are kept in the order of their type. */
const byType = (a: Condition, b: Condition): number => byCodePoint(a.type, b.type);

export interface ConditionInput {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** Sets a condition, keeping its lastTransitionTime unless its status changed. */
export function setCondition(conditions: readonly Condition[], input: ConditionInput, generation: number, now: string): Condition[] {
  const old = conditions.find((c) => c.type === input.type);
  const next: Condition = {
    ...input,
    observedGeneration: generation,
    lastTransitionTime: old !== undefined && old.status === input.status ? old.lastTransitionTime : now,
  };
  return [...conditions.filter((c) => c.type !== input.type), next].sort(byType);
}

/** What the controller decides about a device's status. */
export interface ControllerView {
  readonly scheduled: ConditionInput;
  readonly bundleReady: ConditionInput;
  readonly nodeName?: string;
  /** The phase the controller owns in this situation; undefined leaves it to deviceShifu. */
  readonly phase?: EdgeDevicePhase;
}

export function nextStatus(current: EdgeDeviceStatus | undefined, view: ControllerView, generation: number, now: string): EdgeDeviceStatus {
  let conditions = current?.conditions ?? [];
  conditions = setCondition(conditions, view.scheduled, generation, now);
  conditions = setCondition(conditions, view.bundleReady, generation, now);
  const phase = view.phase ?? current?.edgedevicephase ?? 'Pending';
  const status: EdgeDeviceStatus = { ...current, edgedevicephase: phase, observedGeneration: generation, conditions };
  if (view.nodeName === undefined) delete status.nodeName;
  else status.nodeName = view.nodeName;
  return status;
}

/**
 * Equal as JSON: key order, and keys whose value is undefined, never read as a change. Compared in
 * place: serialising both sides with sorted keys cost ~20 KB of garbage per reconcile under the
 * image's flags, on every resync of every device (steady state).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  return sameRecords(a as Record<string, unknown>, b as Record<string, unknown>);
}

function sameRecords(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let defined = 0;
  for (const key of Object.keys(a)) {
    if (a[key] === undefined) continue;
    defined += 1;
    if (!sameJson(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b)) if (b[key] !== undefined) defined -= 1;
  return defined === 0;
}

export function statusChanged(current: EdgeDeviceStatus | undefined, next: EdgeDeviceStatus): boolean {
  const { conditions: before = [], ...rest } = current ?? {};
  const { conditions: after = [], ...nextRest } = next;
  return !sameJson(rest, nextRest) || !sameJson([...before].sort(byType), [...after].sort(byType));
}
