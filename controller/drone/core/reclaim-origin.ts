// The reclaim, at the origin of a job that could not be placed whole, as named steps: call the
// live providers for offers, decide (reclaim-decide.ts, the same decision from the same offers in
// any order), have each moved component's origin move it (move.ts), one move after the other in
// the decision's order, then commit the job to the hosts decided, as the auction's commit does (an
// OffloadRequest each, a refusal fails it). If no move helps, nothing moves and the job fails
// with the reason.
import { DEFAULT_RECLAIM_MOVES, appKey, newApp, type CoreState, type Step } from './state.ts';
import { toEach } from './addressing.ts';
import { decideReclaim, type Move, type ReclaimDecision } from './reclaim-decide.ts';
import { offerOf } from './reclaim-offers.ts';
import { moveKey, onMoveRequest } from './move.ts';
import { assign, finishIfDone } from './origin-commit.ts';
import type { Job } from '../model.ts';
import type { Envelope } from '../../../shared/bus/envelope.ts';
import type { MoveReplyMessage, MoveRequestMessage, ReclaimOfferMessage } from '../messages/index.ts';
import type { ReclaimState } from './reclaim-state.ts';

export const RECLAIM_STEPS = ['call for offers', 'decide', 'move', 'commit the job'] as const;

function failed(step: Step, job: Job, reason: string): void {
  step.state.reclaims.delete(job.app);
  step.out.events.push({ type: 'failed', app: job.app, origin: job.origin, reason: `reclaim: ${reason}` });
}

/** Why `app` cannot be reclaimed now (it is placed, in an auction or in a reclaim), or undefined. */
export function reclaimConflict(state: CoreState, app: string): string | undefined {
  const open = state.apps.get(appKey(state.config.cluster, app));
  if (state.placements.has(app)) return `app ${app} is placed already: reclaim a failed job under a new app id`;
  if (open !== undefined && !open.closed) return `app ${app} is still in its auction`;
  return state.reclaims.has(app) ? `app ${app} is already being reclaimed` : undefined;
}

/** Starts a reclaim for `job` (a new app id: the one that failed is closed); reclaimConflict() first. */
export function startReclaim(step: Step, job: Job): void {
  const { state, now, out } = step;
  const self = state.config.cluster;
  if (reclaimConflict(state, job.app) !== undefined) return;
  const called = new Set(state.slices.members(now).filter((p) => p !== self));
  const reclaim: ReclaimState = { job, called, offers: new Map([[self, offerOf(state)]]), startedAt: now, phase: 'offers', lastSent: now };
  state.reclaims.set(job.app, reclaim);
  if (called.size > 0) out.messages.push(toEach(called, { kind: 'reclaim-call', app: job.app, baseCluster: self, components: job.components }));
  else decide(step, reclaim);
}

export function onReclaimOffer(step: Step, msg: ReclaimOfferMessage): void {
  const reclaim = step.state.reclaims.get(msg.app);
  if (reclaim?.phase !== 'offers' || !reclaim.called.has(msg.sender) || reclaim.offers.has(msg.sender)) return;
  reclaim.offers.set(msg.sender, { cluster: msg.sender, room: msg.room, free: msg.free, movable: msg.movable });
  if (reclaim.offers.size === reclaim.called.size + 1) decide(step, reclaim);
}

function decide(step: Step, reclaim: ReclaimState): void {
  const { state } = step;
  const limit = state.config.reclaimMoves ?? DEFAULT_RECLAIM_MOVES;
  // Own placements are moved by this cluster itself; foreign ones only by their origins. A job
  // with `offload` runs only on a neighbour, as in the auction: the origin's own offer is left out.
  const offers = [...reclaim.offers.values()].filter((o) => reclaim.job.offload !== true || o.cluster !== state.config.cluster);
  const decision = decideReclaim(reclaim.job, offers, limit);
  if (decision === undefined) {
    failed(step, reclaim.job, `no placement with at most ${String(limit)} move${limit === 1 ? '' : 's'} of placed, not launched components`);
    return;
  }
  reclaim.decision = decision;
  if (decision.moves.length === 0) commit(step, reclaim.job, decision);
  else startMove(step, reclaim, 0);
}

function moveRequest(reclaim: ReclaimState, move: Move): Omit<MoveRequestMessage, keyof Envelope> & { readonly kind: 'move-request' } {
  return { kind: 'move-request', to: move.origin, moveId: reclaim.moveId ?? '', app: move.app, component: move.component, from: move.from, target: move.to };
}

/** The decision's move `index`, once the ones before it are done: its own id, asked of the moved component's origin. */
function startMove(step: Step, reclaim: ReclaimState, index: number): void {
  const { state, now, out } = step;
  const move = reclaim.decision?.moves[index];
  if (move === undefined) return;
  reclaim.phase = 'moving';
  reclaim.moveIndex = index;
  reclaim.moveId = `${reclaim.job.app}.${String(reclaim.startedAt)}.${String(index)}`;
  reclaim.movingSince = now;
  reclaim.lastSent = now;
  const request = moveRequest(reclaim, move);
  if (move.origin === state.config.cluster) {
    onMoveRequest(step, { ...request, sender: state.config.cluster });
    ownMoveDone(step, reclaim);
  } else out.messages.push({ to: move.origin, body: request });
}

const currentMove = (reclaim: ReclaimState): Move | undefined => (reclaim.moveIndex === undefined ? undefined : reclaim.decision?.moves[reclaim.moveIndex]);

/** The moved component's origin answered (or this cluster did, for its own component): the next move, or the commit. */
export function onMoveReply(step: Step, msg: Pick<MoveReplyMessage, 'sender' | 'moveId' | 'outcome' | 'reason'>): void {
  const reclaim = [...step.state.reclaims.values()].find((r) => r.phase === 'moving' && r.moveId === msg.moveId && currentMove(r)?.origin === msg.sender);
  if (reclaim?.decision === undefined || reclaim.moveIndex === undefined) return;
  if (msg.outcome !== 'moved') {
    const done = reclaim.moveIndex === 0 ? '' : ` (${String(reclaim.moveIndex)} move${reclaim.moveIndex === 1 ? '' : 's'} before it done, and they stay)`;
    failed(step, reclaim.job, `the move was refused: ${msg.reason ?? 'no reason given'}${done}`);
  } else if (reclaim.moveIndex + 1 < reclaim.decision.moves.length) startMove(step, reclaim, reclaim.moveIndex + 1);
  else commit(step, reclaim.job, reclaim.decision);
}

/** This cluster moved its own component: the outcome is in its moves, not in a message. */
function ownMoveDone(step: Step, reclaim: ReclaimState): void {
  const self = step.state.config.cluster;
  if (reclaim.moveId === undefined || currentMove(reclaim)?.origin !== self) return;
  const move = step.state.moves.get(moveKey(self, reclaim.moveId));
  if (move?.phase === 'moved' || move?.phase === 'refused') onMoveReply(step, { sender: self, moveId: reclaim.moveId, outcome: move.phase, ...(move.reason === undefined ? {} : { reason: move.reason }) });
}

/** The job goes where the decision says: an app whose commit starts at once, with no votes to fall back on. */
function commit(step: Step, job: Job, decision: ReclaimDecision): void {
  const { state, now } = step;
  state.reclaims.delete(job.app);
  const self = state.config.cluster;
  const app = newApp(appKey(self, job.app), { app: job.app, origin: self, sealed: state.config.mode === 'sealed', components: [...job.components], openedAt: now });
  app.direct = true;
  app.dirty = false;
  app.called = new Set(Object.values(decision.placement).filter((c) => c !== self));
  app.commit = { pending: new Map(), accepted: new Map(), refused: new Map(), waiting: new Map(), attempts: 0 };
  state.apps.set(app.key, app);
  for (const c of job.components) assign(step, app, c.name, decision.placement[c.name] ?? '');
  finishIfDone(step, app);
}

/** Offers that never came end the wait at the weak-agreement deadline; a move request is sent again until its reply. */
export function reclaimTick(step: Step): void {
  const { state, now, out } = step;
  for (const reclaim of [...state.reclaims.values()]) {
    if (reclaim.phase === 'offers') {
      if (now >= reclaim.startedAt + state.config.weakAgreementMs) decide(step, reclaim);
      continue;
    }
    const move = currentMove(reclaim);
    if (move === undefined || reclaim.moveId === undefined) continue;
    const index = reclaim.moveIndex;
    ownMoveDone(step, reclaim);
    // Done (committed or failed), or on to the next move: that one was just sent.
    if (!state.reclaims.has(reclaim.job.app) || reclaim.moveIndex !== index) continue;
    if (now >= (reclaim.movingSince ?? now) + 2 * state.config.replyTimeoutMs) failed(step, reclaim.job, `${move.origin} did not answer the move request within ${String(2 * state.config.replyTimeoutMs)} ms`);
    else if (now >= reclaim.lastSent + state.config.retryMs && move.origin !== state.config.cluster) {
      reclaim.lastSent = now;
      out.messages.push({ to: move.origin, body: moveRequest(reclaim, move) });
    }
  }
}

export function reclaimWakeup(state: CoreState): number {
  const times = [...state.reclaims.values()].flatMap((r) => (r.phase === 'offers' ? [r.startedAt + state.config.weakAgreementMs] : [(r.movingSince ?? 0) + 2 * state.config.replyTimeoutMs, r.lastSent + state.config.retryMs]));
  return Math.min(Number.POSITIVE_INFINITY, ...times);
}
