// The capacity view of the agent right now (auction/budget.ts), built from its state.
import type { CapacityView, Held } from '../auction/budget.ts';
import { held } from '../auction/bundle.ts';
import { offeredCapacity } from '../slicing/capacity.ts';
import { add, allows, sum, type Resources } from '../model.ts';
import type { CoreState } from './state.ts';

function demand(state: CoreState): Map<string, Resources> {
  const out = new Map<string, Resources>();
  for (const app of state.apps.values()) {
    if (app.closed || app.blacklisted || app.origin === state.config.cluster) continue;
    if (app.called !== undefined && !app.called.has(state.config.cluster)) continue;
    const need = sum(app.components.filter((c) => !app.settled.has(c.name) && allows(c, state.config.cluster)).map((c) => c.resources));
    out.set(app.origin, add(out.get(app.origin) ?? { cpu: 0, memory: 0 }, need));
  }
  return out;
}

/** Held resources other than the open-mode bundle: sealed bids outstanding. */
export function reserved(state: CoreState, exceptKey?: string): Held[] {
  return [...state.reservations].filter(([key]) => key !== exceptKey).flatMap(([, r]) => held(r.items));
}

/** The view for bidding: hosted work plus sealed reservations (the bundle is added by the bundle phase). */
export function capacityView(state: CoreState, extraHeld: readonly Held[] = []): CapacityView {
  return {
    self: state.config.cluster,
    free: state.free,
    offered: offeredCapacity(state.free, state.scalePercent),
    hosted: state.ledger.current(),
    held: [...extraHeld],
    demand: demand(state),
    weights: state.config.weights,
  };
}
