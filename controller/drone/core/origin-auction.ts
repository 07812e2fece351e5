// The origin's side of an app: local first; else an auction among the providers it calls
// (origin-calls.ts) until they agree or the weak-agreement deadline passes; then it commits each
// component to its winner (origin-commit.ts). Only the origin decides.
import { roomFor, shares } from '../auction/budget.ts';
import { DEFAULT_FANOUT } from '../auction/candidates.ts';
import { MAX_VOTE } from '../auction/utility.ts';
import { sameWinners } from '../auction/vote-table.ts';
import { allows, fits, sum, type Job } from '../model.ts';
import { bidSealed, coverSealed, rebid } from './participant.ts';
import { callMore, widen } from './origin-calls.ts';
import { assign, commitTick, fail, finishIfDone, resumeWaiting } from './origin-commit.ts';
import { capacityView } from './view.ts';
import { appKey, newApp, type AppState, type CoreState, type Output, type Step } from './state.ts';

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
    const placement = Object.fromEntries(job.components.map((c) => [c.name, self]));
    state.placements.set(job.app, { components: [...job.components], placement: { ...placement }, pinned: new Set() });
    out.events.push({ type: 'placed', app: job.app, origin: self, placement });
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
  coverSealed(state, app, step.now);
  const winners = app.table.winners(app.components.map((c) => c.name));
  const missing = app.components.filter((c) => winners[c.name] === undefined).map((c) => c.name);
  if (missing.length > 0) {
    // Those called could not place it all (or did not answer in time): call more before giving up on it.
    if (widen(step, app, app.components.filter((c) => missing.includes(c.name)))) return;
    const partly = missing.length < app.components.length;
    // Blacklist the worst partly placed app first: its release may let this one complete.
    app.deferred = partly && !weak && !app.sealed && !worstPartlyPlaced(state, app);
    if (app.deferred) return;
    fail(step, app, `no cluster could host ${missing.join(', ')}${weak ? ' before the weak-agreement deadline' : ''}`, true);
    return;
  }
  app.commit = { pending: new Map(), accepted: new Map(), refused: new Map(), waiting: new Map(), attempts: 0 };
  for (const c of app.components) assign(step, app, c.name, winners[c.name] ?? '');
  finishIfDone(step, app);
}
