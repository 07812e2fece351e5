// The bidding side of the auction for this agent: open mode keeps one CBBA bundle across every
// open app and broadcasts its view; sealed mode sends each origin its bids privately and holds
// them as reservations until the origin's solution (thesis ch. 9).
import { extendBundle, held, releaseOutvoted, type BiddableApp, type BundleItem } from '../auction/bundle.ts';
import { beats, sameWinners } from '../auction/vote-table.ts';
import type { VoteEntry } from '../messages/votes.ts';
import { toEach } from './addressing.ts';
import { capacityView, reserved } from './view.ts';
import { appKey, type AppState, type CoreState, type Output } from './state.ts';

function biddable(app: AppState): BiddableApp {
  const settled = app.declined.size === 0 ? app.settled : new Set([...app.settled, ...app.declined]);
  return { app: app.app, origin: app.origin, components: app.components, table: app.table, settled };
}

function appOf(state: CoreState, item: BundleItem): AppState | undefined {
  return state.apps.get(appKey(item.origin, item.app));
}

/** A time for a new own vote: `now`, or just after the previous own vote if that was at the same ms. */
function voteTime(state: CoreState, now: number): number {
  state.lastVoteAt = Math.max(now, state.lastVoteAt + 1);
  return state.lastVoteAt;
}

function openForVotes(app: AppState): boolean {
  return !app.sealed && !app.closed && !app.blacklisted;
}

/** Open mode: whether this cluster bids on the app (the origin always may; others when called, or when the origin called everyone). */
export function calledHere(app: AppState, self: string): boolean {
  return app.origin === self || app.called === undefined || app.called.has(self);
}

/** Open mode: release what was outvoted, then add what can be won; marks changed apps dirty. */
export function rebid(state: CoreState, now: number): void {
  const self = state.config.cluster;
  state.bundle = state.bundle.filter((item) => {
    const app = appOf(state, item);
    return app !== undefined && openForVotes(app) && !app.settled.has(item.component.name);
  });
  dropDeclined(state, now);
  const { kept, released } = releaseOutvoted(state.bundle, (item) => appOf(state, item)?.table, self);
  const releasedAt = released.length > 0 ? voteTime(state, now) : now;
  for (const item of released) {
    const app = appOf(state, item);
    if (app === undefined) continue;
    app.table.own(item.component.name, { cluster: self, value: 0, timestamp: releasedAt });
    app.dirty = true;
  }
  const apps = [...state.apps.values()].filter((a) => openForVotes(a) && calledHere(a, self) && !(a.offload && a.origin === self)).map(biddable);
  const at = Math.max(now, state.lastVoteAt + 1);
  const bundle = extendBundle({ self, now: at, apps, bundle: kept, base: capacityView(state, reserved(state)), mustBeatWinner: true });
  if (bundle.length > kept.length) state.lastVoteAt = at;
  for (const item of bundle.slice(kept.length)) {
    const app = appOf(state, item);
    if (app === undefined) continue;
    app.table.own(item.component.name, { cluster: self, value: item.value, timestamp: at });
    app.dirty = true;
  }
  state.bundle = bundle;
  markChangedViews(state);
}

/** Components this cluster refused to host leave its bundle, their votes set to 0 for the others to see. */
function dropDeclined(state: CoreState, now: number): void {
  const declined = (item: BundleItem): boolean => appOf(state, item)?.declined.has(item.component.name) === true;
  const dropped = state.bundle.filter(declined);
  if (dropped.length === 0) return;
  state.bundle = state.bundle.filter((item) => !declined(item));
  const at = voteTime(state, now);
  for (const item of dropped) {
    const app = appOf(state, item);
    if (app === undefined) continue;
    app.table.own(item.component.name, { cluster: state.config.cluster, value: 0, timestamp: at });
    app.dirty = true;
  }
}

/** A bidder (or the origin) whose view of the winners moved tells the others, so agreement can be seen. */
function markChangedViews(state: CoreState): void {
  const self = state.config.cluster;
  for (const app of state.apps.values()) {
    if (!openForVotes(app)) continue;
    const winners = app.table.winners(app.components.map((c) => c.name));
    // Only the origin and current bidders speak up when their view moves; the rest already said they hold nothing.
    // An origin that called some bidders is not echoed: they hear each other directly.
    // A bidder whose last word to the other bidders was a vote it has let go since (votesAudience) speaks up too: they may still see it win.
    const involved = (app.origin === self && app.called === undefined) || app.components.some((c) => (app.table.get(c.name, self)?.value ?? 0) > 0 || (app.toldBidders?.votes.get(c.name)?.value ?? 0) > 0);
    if (involved && !sameWinners(winners, app.lastWinners)) app.dirty = true;
  }
}

/** Who hears this cluster's votes on an app whose origin called only some bidders: the origin and the other bidders. */
function audience(app: AppState, self: string): string[] {
  return [...new Set([app.origin, ...app.called ?? []])].filter((c) => c !== self).sort();
}

/**
 * A release the other bidders need not hear: this cluster let go of a vote that the winner it
 * knows beats, and that winner sends its own vote to every bidder. Whoever held this cluster's
 * vote sees it beaten there too (a cascade release, of a vote that still stood, is news).
 */
function supersededRelease(app: AppState, entry: VoteEntry, told: VoteEntry | undefined): boolean {
  if (entry.value > 0 || told === undefined || told.value === 0) return false;
  const winner = app.table.winner(entry.component);
  return winner !== undefined && winner.cluster !== entry.cluster && beats(winner, { cluster: told.cluster, value: told.value, timestamp: told.timestamp });
}

/**
 * Who needs this votes message: the other bidders only when it tells them something, that is when
 * this cluster's own entries (or the bidders) changed since its last message to them, or when the
 * origin announced the app again. They take nothing else from it: each winning entry reaches them
 * from its author, and only the origin judges agreement from the winners a bidder reports. So a
 * bidder that never voted (it could not beat the winner it heard of), that let go of a vote only
 * because a vote they all hear beat it, or whose view of the winners moved while its own votes
 * stood, reports to the origin alone: on a line of bidders the losers' reports no longer cross
 * every other bidder (agreement on the 15-cluster line).
 */
export function votesAudience(app: AppState, self: string, own: readonly VoteEntry[]): string[] {
  const everyone = audience(app, self);
  const before = app.toldBidders;
  const claims = own.map((e) => (supersededRelease(app, e, before?.votes.get(e.component)) ? before?.votes.get(e.component) ?? e : e));
  const changed = before === undefined
    ? claims.some((e) => e.value > 0)
    : before.audience !== everyone.join() || claims.length !== before.votes.size || claims.some((e) => !sameEntry(e, before.votes.get(e.component)));
  if (!app.tellAll && !changed) return app.origin === self ? [] : [app.origin];
  app.toldBidders = { votes: new Map(claims.map((e) => [e.component, e])), audience: everyone.join() };
  app.tellAll = false;
  return everyone;
}

function sameEntry(a: VoteEntry, b: VoteEntry | undefined): boolean {
  return b !== undefined && a.value === b.value && a.timestamp === b.timestamp;
}

/** One votes message per dirty open-mode app, once the batch is due (or at once with `force`). */
export function flush(state: CoreState, now: number, out: Output, force = false): void {
  const dirty = [...state.apps.values()].some((a) => a.dirty && openForVotes(a));
  if (!dirty) {
    delete state.dirtySince;
    return;
  }
  state.dirtySince ??= now;
  if (!force && now < state.dirtySince + state.config.batchMs) return;
  delete state.dirtySince;
  for (const app of state.apps.values()) {
    if (!app.dirty || !openForVotes(app)) continue;
    const winners = app.table.winners(app.components.map((c) => c.name));
    state.votesRound += 1;
    const self = state.config.cluster;
    const entries = app.table.spoken(self);
    const votes = { kind: 'votes' as const, app: app.app, baseCluster: app.origin, entries, winners, round: state.votesRound };
    if (app.called === undefined) out.messages.push({ body: votes });
    else {
      const to = votesAudience(app, self, entries.filter((e) => e.cluster === self));
      if (to.length > 0) out.messages.push(toEach(to, votes));
    }
    app.dirty = false;
    app.lastBroadcast = now;
    app.lastWinners = winners;
  }
}

/** Sealed mode: bids for one app, fitting together with everything else held; sent again unchanged on a repeated advert. */
export function bidSealed(state: CoreState, app: AppState, now: number, out: Output): void {
  const self = state.config.cluster;
  let reservation = state.reservations.get(app.key);
  if (reservation === undefined && app.offload && app.origin === self) reservation = { items: [], expiresAt: now + state.config.weakAgreementMs };
  if (reservation === undefined) {
    const base = capacityView(state, [...held(state.bundle), ...reserved(state)]);
    const items = extendBundle({ self, now, apps: [biddable(app)], bundle: [], base, mustBeatWinner: false });
    reservation = { items, expiresAt: now + state.config.weakAgreementMs + state.config.replyTimeoutMs };
    state.reservations.set(app.key, reservation);
  }
  if (app.origin === self) {
    for (const item of reservation.items) app.table.own(item.component.name, { cluster: self, value: item.value, timestamp: now });
    app.reports.set(self, { winners: {}, bidder: reservation.items.length > 0, at: now });
    return;
  }
  const bids = reservation.items.map((i) => ({ component: i.component.name, value: i.value }));
  out.messages.push({ to: app.origin, body: { kind: 'sealed-vote', to: app.origin, app: app.app, bids } });
  app.lastBroadcast = now;
}

/**
 * Sealed mode, at the origin once every bid is in: its own bids are made again, on the components
 * no provider bid on first. It bid at submit, greedily and blind to the others, and could have
 * taken the one component they can all hold, leaving one that only it could hold without a bid.
 * Only the origin's own entries change, and the origin alone decides, so nobody has to agree on it.
 */
export function coverSealed(state: CoreState, app: AppState, now: number): void {
  const self = state.config.cluster;
  const reservation = state.reservations.get(app.key);
  if (app.origin !== self || !app.sealed || app.offload || reservation === undefined) return;
  const others = new Set(app.components.filter((c) => app.table.ranked(c.name).some((v) => v.cluster !== self)).map((c) => c.name));
  const base = capacityView(state, [...held(state.bundle), ...reserved(state, app.key)]);
  const own = biddable(app);
  const uncovered = extendBundle({ self, now, apps: [{ ...own, components: app.components.filter((c) => !others.has(c.name)) }], bundle: [], base, mustBeatWinner: false });
  const items = extendBundle({ self, now, apps: [own], bundle: uncovered, base, mustBeatWinner: false });
  reservation.items = items;
  for (const c of app.components) {
    const item = items.find((i) => i.component.name === c.name);
    const before = app.table.get(c.name, self);
    if ((before?.value ?? 0) === (item?.value ?? 0)) continue;
    app.table.own(c.name, { cluster: self, value: item?.value ?? 0, timestamp: now });
  }
}

/** Closes an app on this agent: its votes and reservations go; hosted components stay in the ledger. */
export function closeApp(state: CoreState, app: AppState, blacklist: boolean, now: number): void {
  app.closed = true;
  app.closedAt ??= now;
  app.blacklisted = app.blacklisted || blacklist;
  app.dirty = false;
  state.bundle = state.bundle.filter((item) => !(item.origin === app.origin && item.app === app.app));
  state.reservations.delete(app.key);
}
