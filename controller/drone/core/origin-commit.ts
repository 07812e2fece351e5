// The origin's commit of an agreed app: each component goes to its winner with an OffloadRequest
// (retried until the reply deadline), a NACK moves it to the next-best voter or a wider round,
// and the app ends placed, or failed with a reason. Only the origin decides, so a component is
// never committed twice.
import { admissible } from '../auction/budget.ts';
import { closeApp, rebid } from './participant.ts';
import { capacityView } from './view.ts';
import { tellCalled, widen } from './origin-calls.ts';
import type { AppState, CoreState, Output, Step } from './state.ts';

export function assign(step: Step, app: AppState, component: string, cluster: string): void {
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
  if (app.direct !== true && widen(step, app, spec)) {
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
export function resumeWaiting(step: Step, app: AppState): void {
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
export function commitTick(state: CoreState, app: AppState, now: number, out: Output): boolean {
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

export function finishIfDone(step: Step, app: AppState): void {
  const { state, now, out } = step;
  const commit = app.commit;
  if (app.closed || commit === undefined || commit.accepted.size < app.components.length) return;
  const placement = Object.fromEntries(commit.accepted);
  const body = { kind: 'solution' as const, app: app.app, baseCluster: app.origin, outcome: 'placed' as const, placement };
  tellCalled(app, body, out);
  out.events.push({ type: 'placed', app: app.app, origin: app.origin, placement });
  state.placements.set(app.app, { components: app.components, placement: { ...placement }, pinned: new Set() });
  app.lastSolution = body;
  app.lastSolutionAt = now;
  closeApp(state, app, false, now);
  rebid(state, now);
}

/** Ends the app failed: solution with the reason, and DEL so hosts that accepted parts give them back; `room` when no cluster had room. */
export function fail(step: Step, app: AppState, reason: string, room = false): void {
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
  state.placements.delete(app.app);
  out.events.push({ type: 'failed', app: app.app, origin: self, reason, ...(room ? { room: true as const } : {}) });
  app.lastSolution = body;
  app.lastSolutionAt = now;
  closeApp(state, app, true, now);
  rebid(state, now);
}