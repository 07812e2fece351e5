// Timers of the agent, driven by an injected clock: agreement and weak agreement, OffloadRequest
// retries and deadlines, re-broadcasts while an auction runs, expiry of fedSlices, forgotten
// auctions and sealed reservations, periodic slice adverts.
import { toEach } from './addressing.ts';
import { advertTick, advertWakeup } from './adverts.ts';
import { originTick, originWakeup } from './origin-auction.ts';
import { refuse } from './origin-commit.ts';
import { closeApp, flush, rebid } from './participant.ts';
import { moveTick, moveWakeup } from './move.ts';
import { reclaimTick, reclaimWakeup } from './reclaim-origin.ts';
import type { AppState, CoreState, Output } from './state.ts';

function forgetAt(state: CoreState, app: AppState): number {
  const c = state.config;
  return app.roundAt + c.weakAgreementMs + c.replyTimeoutMs + 2 * c.gossipMs;
}

/** A participant forgets an auction whose solution never came (counted from the last announcement it heard); it re-sends its votes when the origin re-announces (receive.ts). */
function participantTick(state: CoreState, app: AppState, now: number): void {
  if (now >= forgetAt(state, app)) closeApp(state, app, false, now);
}

/** While no agreement is in sight the origin announces the app again: peers that missed it join, the others send their votes again. */
function announcing(app: AppState): boolean {
  return app.commit === undefined && app.agreeSince === undefined;
}

/**
 * When the origin announces the app again: gossipMs after the advert, then twice as long each
 * time. Every announcement makes every participant send its votes again, so when the federation
 * is slow (overloaded, not lossy) a fixed period would only add to the load that delays agreement.
 */
function nextAnnouncement(state: CoreState, app: AppState): number {
  return app.lastAnnounced + state.config.gossipMs * 2 ** Math.min(app.announcements, 10);
}

function announce(state: CoreState, app: AppState, now: number, out: Output): void {
  if (!announcing(app) || now < nextAnnouncement(state, app)) return;
  app.lastAnnounced = now;
  app.announcements += 1;
  const advert = { kind: 'advertisement' as const, type: 'ADD' as const, app: app.app, baseCluster: app.origin, components: app.components, sealed: app.sealed };
  if (app.called === undefined) out.messages.push({ body: advert });
  else if (!app.sealed) out.messages.push(toEach(app.called, { ...advert, bidders: [...app.called].sort() }));
  else {
    // Sealed: only the providers called that have not bid yet (a bid is final).
    const silent = state.slices.providers(now).filter((p) => app.called?.has(p) === true && !app.reports.has(p));
    if (silent.length > 0) out.messages.push(toEach(silent, advert));
  }
  if (!app.sealed) {
    app.dirty = true;
    app.tellAll = true;
  }
}

function vanished(state: CoreState, gone: readonly string[], now: number, out: Output): void {
  for (const app of state.apps.values()) {
    if (app.closed || app.origin !== state.config.cluster) continue;
    for (const [component, p] of [...(app.commit?.pending ?? [])]) {
      if (gone.includes(p.cluster)) refuse({ state, now, out }, app, component, { cluster: p.cluster, reason: `${p.cluster} left the federation (its slice advert expired)` });
    }
  }
}

/** Closed apps linger to answer late messages (a solution sent again), then are forgotten. */
function prune(state: CoreState, now: number): void {
  const linger = state.config.weakAgreementMs + state.config.replyTimeoutMs;
  for (const [key, app] of [...state.apps]) if (app.closed && now >= (app.closedAt ?? app.openedAt) + linger) state.apps.delete(key);
  // Votes whose advertisement never came: the origin's next announcement makes their senders vote again.
  for (const [key, early] of [...state.earlyVotes]) if (now >= early.at + state.config.gossipMs) state.earlyVotes.delete(key);
}

export function tick(state: CoreState, now: number, out: Output): void {
  prune(state, now);
  const gone = state.slices.expire(now);
  if (gone.length > 0) vanished(state, gone, now, out);
  for (const [key, r] of [...state.reservations]) if (now >= r.expiresAt) state.reservations.delete(key);
  for (const app of [...state.apps.values()]) {
    if (app.closed) continue;
    if (app.origin === state.config.cluster) {
      announce(state, app, now, out);
      originTick(state, app, now, out);
    } else participantTick(state, app, now);
  }
  moveTick({ state, now, out });
  reclaimTick({ state, now, out });
  rebid(state, now);
  flush(state, now, out);
  advertTick(state, now, out);
}

/** The earliest time `tick` has something to do. */
export function nextWakeup(state: CoreState): number {
  const times = [advertWakeup(state), state.slices.nextExpiry() ?? Number.POSITIVE_INFINITY, moveWakeup({ state }), reclaimWakeup(state)];
  if (state.dirtySince !== undefined) times.push(state.dirtySince + state.config.batchMs);
  for (const r of state.reservations.values()) times.push(r.expiresAt);
  for (const app of state.apps.values()) {
    if (app.closed) continue;
    if (app.origin === state.config.cluster) {
      times.push(originWakeup(state, app) ?? Number.POSITIVE_INFINITY);
      if (announcing(app)) times.push(nextAnnouncement(state, app));
    } else times.push(forgetAt(state, app));
  }
  return Math.min(...times);
}
