// What the agent does with each message kind it receives (one handler per kind).
import type { AdvertisementMessage, DroneMessage, HostReplyMessage, SealedVoteMessage, SolutionMessage, VotesMessage } from '../messages/index.ts';
import { onOffloadRequest, onResources, onWithdraw } from './host-replies.ts';
import { onMoveAcknowledged, onMoveHostReply, onMoveRelease, onMoveRequest } from './move.ts';
import { onReclaimCall } from './reclaim-offers.ts';
import { onMoveReply, onReclaimOffer } from './reclaim-origin.ts';
import { accept, refuse } from './origin-commit.ts';
import { bidSealed, calledHere, closeApp, rebid } from './participant.ts';
import { appKey, EARLY_VOTES_MAX, newApp, type AppState, type CoreState, type Output } from './state.ts';

/** A late message about a closed app: its sender missed the solution (only the sender gets it again, unless everyone was called). */
function resendSolution(state: CoreState, app: AppState, at: { now: number; from: string }, out: Output): void {
  const solution = app.lastSolution;
  if (solution?.kind !== 'solution' || at.now < app.lastSolutionAt + state.config.gossipMs) return;
  app.lastSolutionAt = at.now;
  if (app.called !== undefined) out.messages.push({ to: at.from, body: { ...solution, to: at.from } });
  else out.messages.push({ body: solution });
}

/** Open mode: takes the advert's list of bidders; true when it calls this cluster for the first time. */
function joins(app: AppState, bidders: readonly string[] | undefined, self: string): boolean {
  if (bidders === undefined) return false;
  const before = calledHere(app, self);
  app.called = new Set(bidders);
  return !before && app.called.has(self);
}

function onAdvertisement(state: CoreState, msg: AdvertisementMessage, now: number, out: Output): void {
  if (msg.baseCluster !== msg.sender) return;
  if (msg.type === 'DEL') {
    onWithdraw(state, msg, now, out);
    return;
  }
  const known = state.apps.get(appKey(msg.sender, msg.app));
  if (known?.closed === true) return;
  if (known !== undefined && msg.type === 'MOD' && known.commit === undefined) known.components = [...msg.components];
  const self = state.config.cluster;
  const created = known === undefined;
  const app = known ?? opened(state, msg, now);
  // Forgotten only once the origin has stopped announcing it for a while (tick.ts).
  app.roundAt = now;
  const joined = joins(app, msg.bidders, self);
  // A repeated announcement means the origin misses something: send the votes again, at most once a gossip period.
  const due = created || joined || now >= app.lastBroadcast + state.config.gossipMs;
  if (app.sealed) {
    if (due) bidSealed(state, app, now, out);
    return;
  }
  // Open mode: only the bidders called report (a cluster not called stays silent; it only listens).
  if (!calledHere(app, self)) app.dirty = false;
  else if (due) {
    app.dirty = true;
    // Announced again: someone misses votes, maybe another bidder's (they are sent to everyone again).
    app.tellAll = !created;
  }
  rebid(state, now);
}

/** An app heard of for the first time; votes on it that came before its advertisement count before this cluster bids. */
function opened(state: CoreState, msg: AdvertisementMessage, now: number): AppState {
  const app = newApp(appKey(msg.sender, msg.app), { app: msg.app, origin: msg.sender, sealed: msg.sealed, components: [...msg.components], openedAt: now });
  state.apps.set(app.key, app);
  for (const votes of takeEarlyVotes(state, app.key)) if (!app.sealed) mergeVotes(state, app, votes);
  return app;
}

/** Keeps votes on an app not heard of yet, for when its advertisement comes (a bounded number of apps, for a gossip period). */
function keepEarlyVotes(state: CoreState, msg: VotesMessage, now: number): void {
  const key = appKey(msg.baseCluster, msg.app);
  const held = state.earlyVotes.get(key);
  if (held !== undefined) {
    held.votes.push(msg);
    return;
  }
  if (state.earlyVotes.size >= EARLY_VOTES_MAX) return;
  state.earlyVotes.set(key, { at: now, votes: [msg] });
}

function takeEarlyVotes(state: CoreState, key: string): VotesMessage[] {
  const held = state.earlyVotes.get(key);
  state.earlyVotes.delete(key);
  return held?.votes ?? [];
}

function mergeVotes(state: CoreState, app: AppState, msg: VotesMessage): void {
  app.table.merge(msg.entries, state.config.cluster);
  const held = app.reports.get(msg.sender);
  if (held === undefined || held.at < msg.round) {
    app.reports.set(msg.sender, { winners: msg.winners, bidder: msg.entries.some((e) => e.cluster === msg.sender && e.value > 0), at: msg.round });
  }
}

function onVotes(state: CoreState, msg: VotesMessage, now: number, out: Output): void {
  const app = state.apps.get(appKey(msg.baseCluster, msg.app));
  if (app === undefined) {
    // Another bidder's votes overtook this cluster's advertisement (they come by other paths): dropped, they would not be sent again.
    if (msg.baseCluster !== state.config.cluster) keepEarlyVotes(state, msg, now);
    return;
  }
  if (app.sealed) return;
  if (app.closed) {
    if (app.origin === state.config.cluster) resendSolution(state, app, { now, from: msg.sender }, out);
    return;
  }
  mergeVotes(state, app, msg);
  // A cluster not called only keeps the table (in case it is called later): nothing of its own can change.
  if (calledHere(app, state.config.cluster)) rebid(state, now);
}

function onSealedVote(state: CoreState, msg: SealedVoteMessage, now: number, out: Output): void {
  const app = state.apps.get(appKey(state.config.cluster, msg.app));
  if (app === undefined || !app.sealed) return;
  if (app.closed) {
    resendSolution(state, app, { now, from: msg.sender }, out);
    return;
  }
  if (app.reports.has(msg.sender)) return;
  for (const bid of msg.bids) {
    if (app.components.some((c) => c.name === bid.component)) app.table.put(bid.component, { cluster: msg.sender, value: bid.value, timestamp: msg.timestamp });
  }
  app.reports.set(msg.sender, { winners: {}, bidder: msg.bids.length > 0, at: msg.timestamp });
}

function onSolution(state: CoreState, msg: SolutionMessage, now: number, out: Output): void {
  if (msg.baseCluster !== msg.sender) return;
  const app = state.apps.get(appKey(msg.sender, msg.app));
  if (app !== undefined && !app.closed) closeApp(state, app, msg.outcome === 'failed', now);
  const self = state.config.cluster;
  for (const entry of state.ledger.entries().filter((e) => e.origin === msg.sender && e.app === msg.app && msg.placement[e.component] !== self)) {
    state.ledger.release(entry.origin, entry.app, entry.component);
    out.events.push({ type: 'release', app: entry.app, origin: entry.origin, component: entry.component, reason: `the origin's solution is ${msg.outcome}${msg.reason === undefined ? '' : `: ${msg.reason}`}` });
    out.messages.push({ to: entry.origin, body: { kind: 'acknowledge', to: entry.origin, typeAck: 'DEL_ACK', app: entry.app, component: entry.component } });
  }
  rebid(state, now);
}

function onHostReply(state: CoreState, msg: HostReplyMessage, now: number, out: Output): void {
  if (onMoveHostReply({ state, now, out }, msg)) return;
  const self = state.config.cluster;
  const app = state.apps.get(appKey(self, msg.app));
  if (app === undefined) return;
  if (app.closed) {
    // A late ACK for an app that already failed: tell the host to let go again.
    if (msg.verdict === 'ACK' && app.blacklisted) resendSolution(state, app, { now, from: msg.sender }, out);
    return;
  }
  if (msg.verdict === 'ACK') accept({ state, now, out }, app, msg.component, msg.requestId);
  else if (app.commit?.pending.get(msg.component)?.requestId === msg.requestId) refuse({ state, now, out }, app, msg.component, { cluster: msg.sender, reason: msg.reason ?? 'no reason given' });
}

/** Dispatches one validated message; messages addressed to another cluster or echoing our own are ignored. */
export function receive(state: CoreState, msg: DroneMessage, now: number, out: Output): void {
  const self = state.config.cluster;
  if (msg.kind === 'resources') {
    if (msg.sender === self) onResources({ state, now, out }, msg.free, msg.scalePercent ?? state.scalePercent);
    return;
  }
  if (msg.sender === self) return;
  if ('to' in msg && msg.to !== undefined && msg.to !== self) return;
  if ('recipients' in msg && msg.recipients !== undefined && !msg.recipients.includes(self)) return;
  dispatch(state, msg, now, out);
}

function dispatch(state: CoreState, msg: Exclude<DroneMessage, { kind: 'resources' }>, now: number, out: Output): void {
  switch (msg.kind) {
    case 'slice-advert': state.slices.update(msg, now); break;
    case 'advertisement': onAdvertisement(state, msg, now, out); break;
    case 'votes': onVotes(state, msg, now, out); break;
    case 'sealed-vote': onSealedVote(state, msg, now, out); break;
    case 'solution': onSolution(state, msg, now, out); break;
    case 'offload-request': onOffloadRequest(state, msg, now, out); break;
    case 'host-reply': onHostReply(state, msg, now, out); break;
    case 'acknowledge':
      if (!onMoveAcknowledged({ state, now, out }, msg)) out.events.push({ type: 'acknowledged', app: msg.app, from: msg.sender, component: msg.component, typeAck: msg.typeAck });
      break;
    case 'reclaim-call': onReclaimCall(state, msg, out); break;
    case 'reclaim-offer': onReclaimOffer({ state, now, out }, msg); break;
    case 'move-request': onMoveRequest({ state, now, out }, msg); break;
    case 'move-release': onMoveRelease({ state, now, out }, msg); break;
    case 'move-reply': onMoveReply({ state, now, out }, msg); break;
  }
}
