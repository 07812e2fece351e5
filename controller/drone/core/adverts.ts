// Slice adverts (DRONE v2 "Slices advertisement"): broadcast periodically and whenever the offer
// changes; they carry only what is offered.
import { advertisedSlice } from '../auction/budget.ts';
import type { Resources } from '../model.ts';
import { capacityView } from './view.ts';
import type { CoreState, Output } from './state.ts';

function same(a: Resources | undefined, b: Resources): boolean {
  return a !== undefined && Math.abs(a.cpu - b.cpu) < 1e-6 && Math.abs(a.memory - b.memory) < 1e-6;
}

export function advertTick(state: CoreState, now: number, out: Output): void {
  const offered = advertisedSlice(capacityView(state));
  const due = now >= state.lastAdvertAt + state.config.advertIntervalMs;
  if (!due && same(state.lastAdvertised, offered)) return;
  state.advertSeq += 1;
  state.lastAdvertAt = now;
  state.lastAdvertised = offered;
  out.messages.push({ body: { kind: 'slice-advert', offered, seq: state.advertSeq, ttlMs: state.config.advertTtlMs } });
}

export function advertWakeup(state: CoreState): number {
  return state.lastAdvertAt + state.config.advertIntervalMs;
}
