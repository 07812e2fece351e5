// Whom the origin calls to an app's auction and tells of its end: the first round of providers,
// a wider round when those called cannot place some components, and the solution or DEL sent to
// the providers called (only they knew of the app).
import { callList, DEFAULT_FANOUT, roundSize } from '../auction/candidates.ts';
import type { AdvertisementMessage, SolutionMessage } from '../messages/index.ts';
import type { Component } from '../model.ts';
import { toEach } from './addressing.ts';
import type { AppState, Output, Step } from './state.ts';

type Envelope = 'v' | 'id' | 'sender' | 'timestamp' | 'hops' | 'sig';
type SolutionBody = Omit<SolutionMessage, Envelope>;
type AdvertisementBody = Omit<AdvertisementMessage, Envelope>;

/**
 * Calls the next providers whose advertised slices can hold some of `components` (the first
 * round, or a wider one when those called cannot place them) and sends them the advertisement:
 * sealed, to the new ones with only those components; open, to every bidder with the whole app
 * and the list of bidders (they send their votes to each other, and winners are compared over
 * the whole app). One message for all of them (addressing.ts). Nobody else hears of the app.
 * False when nobody is left to call.
 */
export function callMore(step: Step, app: AppState, components: readonly Component[]): boolean {
  const { state, now, out } = step;
  const called = app.called;
  if (called === undefined) return false;
  const fanout = state.config.fanout ?? DEFAULT_FANOUT;
  const fresh = callList(state.slices.live(now), components, new Set([...called, state.config.cluster]), roundSize(fanout, called.size));
  if (fresh.length === 0) return false;
  for (const p of fresh) called.add(p);
  const advert = { kind: 'advertisement' as const, type: 'ADD' as const, app: app.app, baseCluster: app.origin, sealed: app.sealed };
  if (app.sealed) out.messages.push(toEach(fresh, { ...advert, components: [...components] }));
  else {
    // Every bidder learns the new list: it sends its votes to all of them.
    const bidders = [...called].sort();
    out.messages.push(toEach(bidders, { ...advert, components: app.components, bidders }));
  }
  return true;
}

/** A wider round now: the providers called so far could not place `components`. */
export function widen(step: Step, app: AppState, components: readonly Component[]): boolean {
  const silent = [...app.called ?? []].filter((p) => !app.reports.has(p));
  if (!callMore(step, app, components)) return false;
  // Those called before that have not answered by now are not waited for again (a late answer of theirs still counts in open mode).
  for (const p of silent) app.reports.set(p, { winners: {}, bidder: false, at: Number.NEGATIVE_INFINITY });
  app.roundAt = step.now;
  app.lastAnnounced = step.now;
  app.announcements = 0;
  delete app.agreeSince;
  return true;
}

/**
 * The solution or a DEL: only the providers called knew of the app (and hold votes or
 * reservations for it), so each of them gets it and nobody else; a broadcast when all were called.
 */
export function tellCalled(app: AppState, body: SolutionBody | AdvertisementBody, out: Output): void {
  if (app.called === undefined) {
    out.messages.push({ body });
    return;
  }
  out.messages.push(toEach(app.called, body));
}
