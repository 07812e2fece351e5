// A move, at the moved component's origin (the only cluster that commits its app), as named steps:
// check the request, reserve at the target (an OffloadRequest, or its own ledger), re-point the
// placement, release at the old host (until it acknowledges), then reply. Make before break: the
// placement names one host at every moment, so no component is placed twice or lost; a duplicate
// request is answered from memory and never acted on twice.
import { admissible } from '../auction/budget.ts';
import { allows } from '../model.ts';
import type { AcknowledgeMessage, HostReplyMessage, MoveReleaseMessage, MoveRequestMessage } from '../messages/index.ts';
import type { MoveState } from './reclaim-state.ts';
import { appKey, type Step } from './state.ts';
import { rebid } from './participant.ts';
import { capacityView } from './view.ts';

export const moveKey = (requester: string, moveId: string): string => `${requester}/${moveId}`;

/** Why the move cannot be done, or undefined. */
function refusal(step: Step, msg: Pick<MoveRequestMessage, 'app' | 'component' | 'from' | 'target'>): string | undefined {
  const { state } = step;
  const placed = state.placements.get(msg.app);
  const spec = placed?.components.find((c) => c.name === msg.component);
  if (placed === undefined || spec === undefined) return `${msg.app}/${msg.component} is not placed by ${state.config.cluster}`;
  if (placed.placement[msg.component] !== msg.from) return `${msg.app}/${msg.component} is not at ${msg.from}`;
  if (placed.pinned.has(msg.component)) return `${msg.app}/${msg.component} has launched and its deployment does not allow moving it`;
  if (msg.target === msg.from || !allows(spec, msg.target)) return `${msg.app}/${msg.component} may not go to ${msg.target}`;
  const busy = [...state.moves.values()].some((m) => m.app === msg.app && m.component === msg.component && (m.phase === 'reserving' || m.phase === 'releasing'));
  return busy ? `${msg.app}/${msg.component} is already moving` : undefined;
}

function reply(step: Step, move: MoveState): void {
  // The reclaiming origin moving its own component reads the outcome from its moves (reclaim-origin.ts).
  if (move.requester === step.state.config.cluster) return;
  const body = { kind: 'move-reply' as const, to: move.requester, moveId: move.moveId, outcome: move.phase === 'moved' ? 'moved' as const : 'refused' as const, ...(move.reason === undefined ? {} : { reason: move.reason }) };
  step.out.messages.push({ to: move.requester, body });
}

function sendRequest(step: Step, move: MoveState): void {
  const spec = step.state.placements.get(move.app)?.components.find((c) => c.name === move.component);
  if (spec !== undefined) step.out.messages.push({ to: move.target, body: { kind: 'offload-request', to: move.target, requestId: move.requestId, app: move.app, component: spec } });
}

function sendRelease(step: Step, move: MoveState, at: string): void {
  step.out.messages.push({ to: at, body: { kind: 'move-release', to: at, moveId: move.moveId, app: move.app, component: move.component } });
}

function refuseMove(step: Step, move: MoveState, reason: string): void {
  move.phase = 'refused';
  move.reason = reason;
  move.doneAt = step.now;
  reply(step, move);
}

/** The old host gave it back (or it was here): the move is done. */
function released(step: Step, move: MoveState): void {
  move.phase = 'moved';
  move.doneAt = step.now;
  reply(step, move);
}

/** The target holds it: the placement names the target from now on, then the old host lets go. */
function reserved(step: Step, move: MoveState): void {
  const { state, out } = step;
  const placed = state.placements.get(move.app);
  if (placed === undefined) {
    // Withdrawn while the target reserved it: the target gives it back, nothing moved.
    if (move.target !== state.config.cluster) sendRelease(step, move, move.target);
    else state.ledger.release(state.config.cluster, move.app, move.component);
    refuseMove(step, move, `${move.app} was withdrawn during the move`);
    return;
  }
  placed.placement[move.component] = move.target;
  // A solution sent again late names the new host, or the new host would give the component back.
  const closed = state.apps.get(appKey(state.config.cluster, move.app));
  if (closed?.lastSolution?.kind === 'solution' && closed.lastSolution.outcome === 'placed') closed.lastSolution = { ...closed.lastSolution, placement: { ...placed.placement } };
  out.events.push({ type: 'moved', app: move.app, origin: state.config.cluster, component: move.component, from: move.from, to: move.target, reason: `moved to make room for ${move.requester}'s job` });
  if (move.from === state.config.cluster) {
    state.ledger.release(state.config.cluster, move.app, move.component);
    out.events.push({ type: 'release', app: move.app, origin: state.config.cluster, component: move.component, reason: `moved to ${move.target}` });
    rebid(state, step.now);
    released(step, move);
    return;
  }
  move.phase = 'releasing';
  move.lastSent = step.now;
  sendRelease(step, move, move.from);
}

export const MOVE_STEPS = ['check the request', 'reserve at the target', 're-point the placement', 'release at the old host', 'reply'] as const;

export function onMoveRequest(step: Step, msg: Pick<MoveRequestMessage, 'sender' | 'moveId' | 'app' | 'component' | 'from' | 'target'>): void {
  const { state, now } = step;
  const self = state.config.cluster;
  const known = state.moves.get(moveKey(msg.sender, msg.moveId));
  if (known !== undefined) {
    if (known.phase === 'moved' || known.phase === 'refused') reply(step, known);
    return;
  }
  const move: MoveState = { requester: msg.sender, moveId: msg.moveId, app: msg.app, component: msg.component, from: msg.from, target: msg.target, requestId: `${msg.app}.${msg.component}.move.${msg.sender}.${msg.moveId}`.slice(0, 256), phase: 'reserving', deadline: now + state.config.replyTimeoutMs, lastSent: now };
  const why = refusal(step, msg);
  state.moves.set(moveKey(msg.sender, msg.moveId), move);
  if (why !== undefined) {
    refuseMove(step, move, why);
    return;
  }
  if (msg.target !== self) {
    sendRequest(step, move);
    return;
  }
  const spec = state.placements.get(msg.app)?.components.find((c) => c.name === msg.component);
  if (spec === undefined || !admissible(capacityView(state), self, spec.resources)) {
    refuseMove(step, move, `${self} has no room for ${msg.component} any more`);
    return;
  }
  state.ledger.hostOwn({ origin: self, app: msg.app, component: msg.component, resources: spec.resources }, now);
  reserved(step, move);
}

/** The target's answer; true when it was for a move. A late ACK for a refused move is given back. */
export function onMoveHostReply(step: Step, msg: HostReplyMessage): boolean {
  const move = [...step.state.moves.values()].find((m) => m.requestId === msg.requestId && m.target === msg.sender);
  if (move === undefined) return false;
  if (move.phase === 'reserving') {
    if (msg.verdict === 'ACK') reserved(step, move);
    else refuseMove(step, move, `${move.target} refused ${move.component}: ${msg.reason ?? 'no reason given'}`);
  } else if (move.phase === 'refused' && msg.verdict === 'ACK') sendRelease(step, move, move.target);
  return true;
}

/** DEL_ACK from the old host of a move being released; true when it was for one. */
export function onMoveAcknowledged(step: Step, msg: AcknowledgeMessage): boolean {
  if (msg.typeAck !== 'DEL_ACK') return false;
  const moves = [...step.state.moves.values()].filter((m) => m.from === msg.sender && m.app === msg.app && m.component === msg.component);
  if (moves.length === 0) return false;
  // A repeated DEL_ACK of a move already done tells nothing (and the component still runs elsewhere);
  // an earlier move of the same component from the same host may still be remembered beside this one.
  const releasing = moves.find((m) => m.phase === 'releasing');
  if (releasing !== undefined) released(step, releasing);
  return true;
}

/** At the old host: give the component back (once; a repeated release is acknowledged again). */
export function onMoveRelease(step: Step, msg: MoveReleaseMessage): void {
  const { state, now, out } = step;
  const entry = state.ledger.release(msg.sender, msg.app, msg.component);
  if (entry !== undefined) {
    out.events.push({ type: 'release', app: msg.app, origin: msg.sender, component: msg.component, reason: 'moved elsewhere to make room for another job' });
    rebid(state, now);
  }
  out.messages.push({ to: msg.sender, body: { kind: 'acknowledge', to: msg.sender, typeAck: 'DEL_ACK', app: msg.app, component: msg.component } });
}

/** Retransmissions, the reservation deadline, and an old host that left (its advert expired: nothing to release). */
export function moveTick(step: Step): void {
  const { state, now } = step;
  const linger = state.config.weakAgreementMs + 2 * state.config.replyTimeoutMs;
  for (const [key, move] of [...state.moves]) {
    if (move.doneAt !== undefined && now >= move.doneAt + linger) state.moves.delete(key);
    if (move.phase === 'reserving') {
      if (now >= move.deadline) refuseMove(step, move, `${move.target} did not answer within ${String(state.config.replyTimeoutMs)} ms`);
      else if (now >= move.lastSent + state.config.retryMs) {
        move.lastSent = now;
        sendRequest(step, move);
      }
    } else if (move.phase === 'releasing') {
      if (state.slices.get(move.from, now) === undefined) released(step, move);
      else if (now >= move.lastSent + state.config.retryMs) {
        move.lastSent = now;
        sendRelease(step, move, move.from);
      }
    }
  }
}

export function moveWakeup(step: Pick<Step, 'state'>): number {
  const { state } = step;
  const linger = state.config.weakAgreementMs + 2 * state.config.replyTimeoutMs;
  const times = [...state.moves.values()].flatMap((m) => (m.phase === 'reserving' ? [m.deadline, m.lastSent + state.config.retryMs] : m.phase === 'releasing' ? [m.lastSent + state.config.retryMs] : [(m.doneAt ?? 0) + linger]));
  return Math.min(Number.POSITIVE_INFINITY, ...times);
}
