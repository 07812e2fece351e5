// Slice adverts (DRONE v2 "Slices advertisement"): broadcast periodically and whenever the offer
// changes (changes coming close together in one advert); they carry only what is offered.
import { advertisedSlice } from '../auction/budget.ts';
import { sameResources as same } from '../model.ts';
import { capacityView } from './view.ts';
import type { CoreState, Output } from './state.ts';

/** Slice changes wait this long after the previous advert (DroneConfig.advertGapMs). */
export const DEFAULT_ADVERT_GAP_MS = 100;

export function advertTick(state: CoreState, now: number, out: Output): void {
  const offered = advertisedSlice(capacityView(state));
  const periodic = now >= state.lastAdvertAt + state.config.advertIntervalMs;
  if (!periodic && same(state.lastAdvertised, offered)) {
    delete state.advertDueAt;
    return;
  }
  // Every hosting changes the slice, and every advert goes to the whole federation: a burst of
  // changes costs one advert, sent once the gap since the previous one has passed.
  const gapEnds = state.lastAdvertAt + (state.config.advertGapMs ?? DEFAULT_ADVERT_GAP_MS);
  if (!periodic && now < gapEnds) {
    state.advertDueAt = gapEnds;
    return;
  }
  delete state.advertDueAt;
  state.advertSeq += 1;
  state.lastAdvertAt = now;
  state.lastAdvertised = offered;
  out.messages.push({ body: { kind: 'slice-advert', offered, seq: state.advertSeq, ttlMs: state.config.advertTtlMs } });
}

export function advertWakeup(state: CoreState): number {
  return Math.min(state.lastAdvertAt + state.config.advertIntervalMs, state.advertDueAt ?? Number.POSITIVE_INFINITY);
}
