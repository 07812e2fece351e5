// What a refused reservation or purchase means for the Solver (pure). A refusal that waiting can
// change (the flavour went to another buyer, or no longer holds the take: a race) sends the Solver
// back to discovery, after a delay that grows with each refusal, up to its attempts or, when it
// has one, its deadline (spec.activeDeadlineSeconds). A refusal that waiting cannot change (the
// seller forbids this buyer, finds the request invalid, or asks more than the ceiling) ends it
// Failed at once, the reason naming the step and the message what to change: trying again would
// be refused the same way forever.
import type { Price } from './model.ts';
import { retryDelay, type DiscoveryRetryPolicy } from './discovery-retry.ts';

export type RefusalClass = 'again' | 'final' | 'no-answer';

/** By the refusal's kind: a race (again), one waiting cannot change (final), or no answer yet (the same request tried again). */
export function classifyRefusal(kind: string): RefusalClass {
  if (kind === 'unavailable' || kind === 'timeout') return 'no-answer';
  if (kind === 'forbidden' || kind === 'invalid') return 'final';
  return 'again';
}

/** How a failed step is taken: a seller's answer to a RESERVE or PURCHASE by its kind; anything else (no answer, this side's own failure) as before. */
export function refusalClassOf(err: { readonly kind: string; readonly transient: boolean }, fromSeller: boolean): RefusalClass {
  if (fromSeller) return classifyRefusal(err.kind);
  return err.transient ? 'no-answer' : 'again';
}

const STEP_NAMES = { reserve: 'Reservation', purchase: 'Purchase' } as const;

/** The Failed reason and message of a final refusal from `provider` at `step`. */
export function finalRefusal(step: 'reserve' | 'purchase', kind: 'forbidden' | 'invalid', provider: string, message: string): { reason: string; message: string } {
  const name = STEP_NAMES[step];
  return kind === 'forbidden'
    ? { reason: `${name}Forbidden`, message: `${provider} refused this cluster: ${message}. Trying again changes nothing: add ${provider} to spec.deniedProviders so another provider is chosen, or have ${provider} allow this cluster` }
    : { reason: `${name}Invalid`, message: `${provider} refused the request as invalid: ${message}. Trying again changes nothing: change the Solver's spec (spec.resources, spec.durationSeconds) and create it again` };
}

const show = (p: Price): string => `${p.amount} ${p.currency} ${p.period}`;

/** A transaction priced above the intent's ceiling: Failed, naming the price and what to change. */
export function aboveCeiling(provider: string, asked: Price, ceiling: Price): { reason: string; message: string } {
  return { reason: 'PriceAboveCeiling', message: `${provider} asks ${show(asked)} for the reservation, above spec.maxPrice (${show(ceiling)}). Trying again changes nothing: raise spec.maxPrice, or add ${provider} to spec.deniedProviders` };
}

/** After a race refusal: when the next discovery may come. The first comes at once (another flavour may be on sale now). */
export const REFUSAL_RETRY: DiscoveryRetryPolicy = { initialMs: 100, maxMs: 60_000 };

/**
 * With a deadline: the next attempt's time (never past the deadline), or 'deadline' once it has
 * come. Without one: undefined (the Solver's attempts bound it).
 */
export function nextAfterRefusal(policy: DiscoveryRetryPolicy, attempts: number, now: number, deadline: number | undefined): number | 'deadline' | undefined {
  if (deadline === undefined) return undefined;
  if (now >= deadline) return 'deadline';
  return Math.min(now + retryDelay(policy, attempts), deadline);
}
