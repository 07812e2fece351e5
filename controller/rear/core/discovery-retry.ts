// When a Solver whose discovery found nothing tries again (pure). A k3s operator expects an intent
// that cannot be met yet to wait as a Pending pod does, not to fail: the next discovery comes
// after a delay that doubles with each empty one, up to a cap, and stops at the Solver's own
// deadline (spec.activeDeadlineSeconds, counted from its creation, as a Job's is).

export interface DiscoveryRetryPolicy {
  /** The delay after the first empty discovery. */
  readonly initialMs: number;
  /** The longest delay between two discoveries. */
  readonly maxMs: number;
}

export const DISCOVERY_RETRY: DiscoveryRetryPolicy = { initialMs: 5_000, maxMs: 300_000 };

export type DiscoveryRetry =
  | { readonly kind: 'retry'; readonly at: number; readonly failures: number }
  | { readonly kind: 'deadline'; readonly failures: number };

/** The delay after `failures` empty discoveries (1, 2, …): initial × 2^(failures−1), capped. */
export function retryDelay(policy: DiscoveryRetryPolicy, failures: number): number {
  const doublings = Math.max(0, Math.min(failures - 1, 40));
  return Math.min(policy.maxMs, policy.initialMs * 2 ** doublings);
}

/**
 * After an empty discovery (`failures` counts it): the time of the next one, never past the
 * deadline (the last attempt is made at it), or `deadline` once the deadline has come.
 */
export function nextDiscovery(policy: DiscoveryRetryPolicy, failures: number, now: number, deadline?: number): DiscoveryRetry {
  if (deadline !== undefined && now >= deadline) return { kind: 'deadline', failures };
  const at = now + retryDelay(policy, failures);
  return { kind: 'retry', at: deadline === undefined ? at : Math.min(at, deadline), failures };
}

/** The Solver's deadline: its creation plus spec.activeDeadlineSeconds, or none. */
export function solverDeadline(createdAt: string | undefined, activeDeadlineSeconds: number | undefined): number | undefined {
  if (activeDeadlineSeconds === undefined || createdAt === undefined) return undefined;
  const created = new Date(createdAt).getTime();
  return Number.isNaN(created) ? undefined : created + activeDeadlineSeconds * 1000;
}

/** Whether a Solver waiting for its next discovery may try now; else how long to wait. */
export function waitForRetry(retryAt: string | undefined, now: number): number {
  if (retryAt === undefined) return 0;
  const at = new Date(retryAt).getTime();
  return Number.isNaN(at) ? 0 : Math.max(0, at - now);
}
