// metav1.Condition bookkeeping: lastTransitionTime moves only when the status does.
import type { Condition } from '../shared/crds/schema.ts';
import { isoTime } from '../shared/time.ts';

export interface ConditionUpdate {
  readonly type: string;
  readonly status: Condition['status'];
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
}

/** The condition to write, keeping the existing transition time when the status did not change. */
export function nextCondition(existing: readonly Condition[] | undefined, update: ConditionUpdate, now: Date): Condition {
  const current = existing?.find((c) => c.type === update.type);
  const lastTransitionTime = current !== undefined && current.status === update.status ? current.lastTransitionTime : isoTime(now.getTime());
  return { ...update, lastTransitionTime };
}

/** True when the condition already says exactly this (transition time aside). */
export function sameCondition(current: Condition | undefined, update: ConditionUpdate): boolean {
  return current !== undefined && current.status === update.status && current.reason === update.reason &&
    current.message === update.message && current.observedGeneration === update.observedGeneration;
}
