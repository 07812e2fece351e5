// Utility and vote: utility = round(100 × normalised residual capacity once the
// component is added to what the cluster already holds), so lightly loaded clusters bid higher
// while they stay lightly loaded; under pressure the tightest fit bids highest (fitAware); a vote
// never rises along one app's components (CBBA's diminishing gain) and never exceeds 100.
import { fits, type Resources } from '../model.ts';

export const MAX_VOTE = 100;

/** 0 when the component does not fit in `room`; otherwise 1..100. */
export function utility(need: Resources, room: Resources, capacity: Resources): number {
  if (!fits(need, room)) return 0;
  const cpu = capacity.cpu > 0 ? (room.cpu - need.cpu) / capacity.cpu : 1;
  const memory = capacity.memory > 0 ? (room.memory - need.memory) / capacity.memory : 1;
  return Math.max(1, Math.min(MAX_VOTE, Math.round(100 * Math.min(cpu, memory))));
}

/**
 * A utility below this (the part of the slice left once the component is added, in percent) puts
 * the cluster under pressure. Measured with bench/drone-quality.ts (README, "Placement quality"):
 * any threshold from 70 to 95 gave the same placements there; 50 gave back half the gain.
 */
export const PACK_BELOW = 80;

/**
 * Spreads while there is room, packs under pressure: a cluster that keeps at least `packBelow`% of
 * its slice bids its utility (80..100, the roomiest highest, DRONE's load spreading); one that
 * would keep less bids `packBelow − utility` (1..79), so the tightest fit bids highest among them
 * and any roomy cluster outbids them all. Spreading small components over nearly full clusters is
 * what left no cluster room for a large one.
 */
export function fitAware(utilityValue: number, packBelow = PACK_BELOW): number {
  if (utilityValue === 0 || utilityValue >= packBelow) return utilityValue;
  return Math.max(1, packBelow - utilityValue);
}

/** The vote: min(utility, smallest vote already cast on the same app, per-component maximum). */
export function vote(utilityValue: number, castOnApp: readonly number[], maximum = MAX_VOTE): number {
  return Math.min(utilityValue, maximum, ...castOnApp);
}
