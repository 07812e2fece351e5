// The origin's side of an app (REFERENCE §3, DRONE v2 offloading workflow): local first; else an
// auction; at agreement (or the weak-agreement deadline) it commits each component to its winner
// with an OffloadRequest, falls back to the next-best voter on NACK, and ends the app placed or
// failed with a reason. Only the origin decides, so a component is never committed twice.
import { admissible, roomFor, shares } from '../auction/budget.ts';
import { callList, DEFAULT_FANOUT, roundSize } from '../auction/candidates.ts';
import { MAX_VOTE } from '../auction/utility.ts';
import { sameWinners } from '../auction/vote-table.ts';
import type { AdvertisementMessage, SolutionMessage } from '../messages/index.ts';
import { allows, fits, sum, type Component, type Job } from '../model.ts';
import { bidSealed, closeApp, rebid } from './participant.ts';
import { toEach } from './addressing.ts';
import { capacityView } from './view.ts';
import { appKey, newApp, type AppState, type CoreState, type Output, type Step } from './state.ts';

type Envelope = 'v' | 'id' | 'sender' | 'timestamp' | 'hops' | 'sig';
type SolutionBody = Omit<SolutionMessage, Envelope>;
type AdvertisementBody = Omit<AdvertisementMessage, Envelope>;

function canHostLocally(state: CoreState, job: Job): boolean {
  const self = state.config.cluster;
  if (!job.components.every((c) => allows(c, self))) return false;
  const view = capacityView(state);
  return fits(sum(job.components.map((c) => c.resources)), roomFor(view, self, shares(view)));
}

/** A job submitted at this cluster: placed here if it fits (local first), else put to auction. */
export function submit(state: CoreState, job: Job, now: number, out: Output): void {
  const self = state.config.cluster;
  const key = appKey(self, job.app);
  const known = state.apps.get(key);
  if (known !== undefined && !known.closed) return;
  if (job.offload !== true && canHostLocally(state, job)) {
    for (const c of job.components) state.ledger.hostOwn({ origin: self, app: job.app, component: c.name, resources: c.resources }, now);
    out.events.push({ type: 'placed', app: job.app, origin: self, placement: Object.fromEntries(job.components.map((c) => [c.name, self])) });
    return;
  }
  const app = newApp(key, { app: job.app, origin: self, sealed: state.config.mode === 'sealed', components: [...job.components], openedAt: now, offload: job.offload === true });
  state.apps.set(key, app);
  if ((state.config.fanout ?? DEFAULT_FANOUT) > 0) {
    app.called = new Set();
    // It speaks (votes) only if it bids itself.
    app.dirty = false;
    callMore({ state, now, out }, app, app.components);
  } else out.messages.push({ body: { kind: 'advertisement', type: 'ADD', app: job.app, baseCluster: self, components: job.components, sealed: app.sealed } });
  if (app.sealed) bidSealed(state, app, now, out);
  else rebid(state, now);
}

/**
 * Calls the next providers whose advertised slices can hold some of `components` (the first
 * round, or a wider one when those called cannot place them) and sends them the advertisement:
 * sealed, to the new ones with only those components; open, to every bidder with the whole app
 * and the list of bidders (they send their votes to each other, and winners are compared over
 * the whole app). One message for all of them (addressing.ts). Nobody else hears of the app.
 * False when nobody is left to call.
 */
function callMore(step: Step, app: AppState, components: readonly Component[]): boolean {
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
function widen(step: Step, app: AppState, components: readonly Component[]): boolean {
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

/**
 * Whether a bidder whose latest report names other winners can only come round to the origin's:
 * every component it sees otherwise is won, in the origin's table, by a vote of 100. Nobody
 * outbids that (a vote is at most 100, and a tie goes to the older vote, which any new vote is
 * not), so once the bidder hears the winning votes (every bidder sends its votes to all the
 * others) it lets go, and its release would tell the origin nothing. The origin then does not
 * wait for that release (a third leg on the way to agreement).
 */
function outbidAnyway(app: AppState, reported: Readonly<Record<string, string>>, winners: Readonly<Record<string, string>>): boolean {
  return app.components.every((c) => reported[c.name] === winners[c.name] || (winners[c.name] !== undefined && app.table.winner(c.name)?.value === MAX_VOTE));
}

function agreed(state: CoreState, app: AppState, now: number): boolean {
  const self = state.config.cluster;
  const winners = app.table.winners(app.components.map((c) => c.name));
  // Only those called count (a few, whatever the federation's size); the ones whose advert expired left.
  const expected = app.called === undefined ? state.slices.providers(now) : [...app.called].filter((p) => state.slices.get(p, now) !== undefined);
  return expected.filter((p) => p !== self).every((p) => {
    const report = app.reports.get(p);
    if (report === undefined) return false;
    return app.sealed || !report.bidder || sameWinners(report.winners, winners) || outbidAnyway(app, report.winners, winners);
  });
}

/** Sealed bids are final (a provider bids once per app), so the origin decides as soon as it holds them all. */
function quietMs(state: CoreState, app: AppState): number {
  return app.sealed ? 0 : state.config.agreementMs;
}

/** Decides when every active provider agrees for `agreementMs`, or at the weak-agreement deadline. */
export function originTick(state: CoreState, app: AppState, now: number, out: Output): void {
  if (app.closed) return;
  if (app.commit !== undefined) {
    if (commitTick(state, app, now, out)) resumeWaiting({ state, now, out }, app);
    return;
  }
  const weak = now >= app.roundAt + state.config.weakAgreementMs;
  if (!agreed(state, app, now)) delete app.agreeSince;
  else app.agreeSince ??= now;
  const strong = app.agreeSince !== undefined && now >= app.agreeSince + quietMs(state, app);
  if (strong || weak) decide({ state, now, out }, app, weak);
}

export function originWakeup(state: CoreState, app: AppState): number | undefined {
  if (app.closed) return undefined;
  if (app.commit !== undefined) {
    const times = [...app.commit.pending.values()].flatMap((p) => [p.deadline, p.lastSent + state.config.retryMs]);
    for (const since of app.commit.waiting.values()) times.push(since + state.config.weakAgreementMs);
    return times.length === 0 ? undefined : Math.min(...times);
  }
  const strong = app.agreeSince === undefined || app.deferred ? Number.POSITIVE_INFINITY : app.agreeSince + quietMs(state, app);
  return Math.min(strong, app.roundAt + state.config.weakAgreementMs);
}

/** Whether `app` is the worst of the partly placed apps in view (the one to blacklist first). */
function worstPartlyPlaced(state: CoreState, app: AppState): boolean {
  const fraction = (a: AppState): number => Object.keys(a.table.winners(a.components.map((c) => c.name))).length / a.components.length;
  const partly = [...state.apps.values()].filter((a) => !a.closed && !a.sealed && fraction(a) > 0 && fraction(a) < 1);
  partly.sort((a, b) => fraction(a) - fraction(b) || a.key.localeCompare(b.key));
  return partly[0] === app || partly.length === 0;
}

function decide(step: Step, app: AppState, weak: boolean): void {
  const { state } = step;
  const winners = app.table.winners(app.components.map((c) => c.name));
  const missing = app.components.filter((c) => winners[c.name] === undefined).map((c) => c.name);
  if (missing.length > 0) {
    // Those called could not place it all (or did not answer in time): call more before giving up on it.
    if (widen(step, app, app.components.filter((c) => missing.includes(c.name)))) return;
    const partly = missing.length < app.components.length;
    // Blacklist the worst partly placed app first: its release may let this one complete.
    app.deferred = partly && !weak && !app.sealed && !worstPartlyPlaced(state, app);
    if (app.deferred) return;
    fail(step, app, `no cluster could host ${missing.join(', ')}${weak ? ' before the weak-agreement deadline' : ''}`);
    return;
  }
  app.commit = { pending: new Map(), accepted: new Map(), refused: new Map(), waiting: new Map(), attempts: 0 };
  for (const c of app.components) assign(step, app, c.name, winners[c.name] ?? '');
  finishIfDone(step, app);
}

function assign(step: Step, app: AppState, component: string, cluster: string): void {
  const { state, now, out } = step;
  const commit = app.commit;
  const spec = app.components.find((c) => c.name === component);
  if (commit === undefined || spec === undefined) return;
  const self = state.config.cluster;
  if (cluster === self) {
    if (admissible(capacityView(state), self, spec.resources)) {
      state.ledger.hostOwn({ origin: self, app: app.app, component, resources: spec.resources }, now);
      commit.accepted.set(component, self);
      app.settled.add(component);
    } else refuse(step, app, component, { cluster: self, reason: 'no longer fits here' });
    return;
  }
  commit.attempts += 1;
  const requestId = `${app.app}.${component}.${commit.attempts}`;
  commit.pending.set(component, { cluster, requestId, deadline: now + state.config.replyTimeoutMs, lastSent: now });
  out.messages.push({ to: cluster, body: { kind: 'offload-request', to: cluster, requestId, app: app.app, component: spec } });
}

function nextVoter(state: CoreState, app: AppState, component: string, now: number): string | undefined {
  const refused = app.commit?.refused.get(component) ?? new Set<string>();
  const live = new Set([state.config.cluster, ...state.slices.providers(now)]);
  return app.table.ranked(component).find((v) => !refused.has(v.cluster) && live.has(v.cluster))?.cluster;
}

/** A NACK (or a host that vanished): the next-best voter that has not refused, else providers not called yet, or the app fails. */
export function refuse(step: Step, app: AppState, component: string, why: { cluster: string; reason: string }): void {
  const { state, now } = step;
  const { cluster, reason } = why;
  const commit = app.commit;
  if (commit === undefined) return;
  commit.pending.delete(component);
  const refused = commit.refused.get(component) ?? new Set<string>();
  refused.add(cluster);
  commit.refused.set(component, refused);
  const next = nextVoter(state, app, component, now);
  if (next !== undefined) {
    assign(step, app, component, next);
    finishIfDone(step, app);
    return;
  }
  const spec = app.components.filter((c) => c.name === component);
  if (widen(step, app, spec)) {
    commit.waiting.set(component, now);
    return;
  }
  fail(step, app, `${cluster} refused ${component} (${reason}) and no other cluster voted for it`);
}

/** Every live provider called has answered (a bid, possibly empty, or votes). */
function calledHeard(state: CoreState, app: AppState, now: number): boolean {
  return [...app.called ?? []].every((p) => app.reports.has(p) || state.slices.get(p, now) === undefined);
}

/** Components refused by every voter, once the providers called for them answered (or the weak-agreement time passed). */
function resumeWaiting(step: Step, app: AppState): void {
  const { state, now } = step;
  const commit = app.commit;
  if (commit === undefined || commit.waiting.size === 0) return;
  const heard = calledHeard(state, app, now);
  for (const [component, since] of [...commit.waiting]) {
    const expired = now >= since + state.config.weakAgreementMs;
    if (!heard && !expired) continue;
    commit.waiting.delete(component);
    const next = nextVoter(state, app, component, now);
    if (next !== undefined) assign(step, app, component, next);
    else if (!expired && widen(step, app, app.components.filter((c) => c.name === component))) commit.waiting.set(component, now);
    else {
      fail(step, app, `every cluster called refused ${component} or did not bid for it`);
      return;
    }
  }
  finishIfDone(step, app);
}

export function accept(step: Step, app: AppState, component: string, requestId: string): void {
  const pending = app.commit?.pending.get(component);
  if (pending?.requestId !== requestId) return;
  app.commit?.pending.delete(component);
  app.commit?.accepted.set(component, pending.cluster);
  app.settled.add(component);
  finishIfDone(step, app);
}

/** Retries and reply deadlines of the OffloadRequests out; false when the app failed. */
function commitTick(state: CoreState, app: AppState, now: number, out: Output): boolean {
  for (const [component, p] of [...(app.commit?.pending ?? [])]) {
    if (now >= p.deadline) {
      fail({ state, now, out }, app, `${p.cluster} did not answer the offload request for ${component} within ${state.config.replyTimeoutMs} ms`);
      return false;
    }
    if (now >= p.lastSent + state.config.retryMs) {
      p.lastSent = now;
      const spec = app.components.find((c) => c.name === component);
      if (spec !== undefined) out.messages.push({ to: p.cluster, body: { kind: 'offload-request', to: p.cluster, requestId: p.requestId, app: app.app, component: spec } });
    }
  }
  return true;
}

function finishIfDone(step: Step, app: AppState): void {
  const { state, now, out } = step;
  const commit = app.commit;
  if (app.closed || commit === undefined || commit.accepted.size < app.components.length) return;
  const placement = Object.fromEntries(commit.accepted);
  const body = { kind: 'solution' as const, app: app.app, baseCluster: app.origin, outcome: 'placed' as const, placement };
  tellCalled(app, body, out);
  out.events.push({ type: 'placed', app: app.app, origin: app.origin, placement });
  app.lastSolution = body;
  app.lastSolutionAt = now;
  closeApp(state, app, false, now);
  rebid(state, now);
}

/** Ends the app failed: solution with the reason, and DEL so hosts that accepted parts give them back. */
export function fail(step: Step, app: AppState, reason: string): void {
  const { state, now, out } = step;
  if (app.closed) return;
  const self = state.config.cluster;
  const placement = Object.fromEntries(app.commit?.accepted ?? []);
  const body = { kind: 'solution' as const, app: app.app, baseCluster: app.origin, outcome: 'failed' as const, placement: {}, reason };
  tellCalled(app, body, out);
  if (Object.keys(placement).length > 0 || (app.commit?.pending.size ?? 0) > 0) {
    tellCalled(app, { kind: 'advertisement', type: 'DEL', app: app.app, baseCluster: self, components: [], sealed: app.sealed }, out);
  }
  state.ledger.releaseApp(self, app.app);
  out.events.push({ type: 'failed', app: app.app, origin: self, reason });
  app.lastSolution = body;
  app.lastSolutionAt = now;
  closeApp(state, app, true, now);
  rebid(state, now);
}
