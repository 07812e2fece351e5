// Utility and vote: utility = round(100 × normalised residual capacity once the
// component is added to what the cluster already holds), so lightly loaded clusters bid higher;
// a vote never rises along one app's components (CBBA's diminishing gain) and never exceeds 100.
import { fits, type Resources } from '../model.ts';

export const MAX_VOTE = 100;

/** 0 when the component does not fit in `room`; otherwise 1..100. */
export function utility(need: Resources, room: Resources, capacity: Resources): number {
  if (!fits(need, room)) return 0;
  const cpu = capacity.cpu > 0 ? (room.cpu - need.cpu) / capacity.cpu : 1;
  const memory = capacity.memory > 0 ? (room.memory - need.memory) / capacity.memory : 1;
  return Math.max(1, Math.min(MAX_VOTE, Math.round(100 * Math.min(cpu, memory))));
}

/** The vote: min(utility, smallest vote already cast on the same app, per-component maximum). */
export function vote(utilityValue: number, castOnApp: readonly number[], maximum = MAX_VOTE): number {
  return Math.min(utilityValue, maximum, ...castOnApp);
}
