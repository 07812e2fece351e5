// The hosting side (DRONE v2 steps 9-14 and "Resource release"): answer OffloadRequests from the
// ledger, give components back on DEL, and reclaim from origins above their share when the
// cluster's own demand returns and the offered slice shrinks below what is hosted.
import { admissible } from '../auction/budget.ts';
import type { AdvertisementMessage, OffloadRequestMessage } from '../messages/index.ts';
import { offeredCapacity } from '../slicing/capacity.ts';
import { reclaim } from '../slicing/reclaim.ts';
import { SOLD_APP_PREFIX } from '../host-ledger.ts';
import { atLeastZero, subtract, sum } from '../model.ts';
import { closeApp, rebid } from './participant.ts';
import { capacityView } from './view.ts';
import { appKey, type CoreState, type Output, type Step } from './state.ts';

export function onOffloadRequest(state: CoreState, msg: OffloadRequestMessage, now: number, out: Output): void {
  const origin = msg.sender;
  const answer = state.ledger.answer(
    { origin, requestId: msg.requestId, app: msg.app, component: msg.component.name, resources: msg.component.resources },
    (need) => admissible(capacityView(state), origin, need),
    now,
    state.config.admit?.(origin, msg.component),
  );
  out.messages.push({
    to: origin,
    body: { kind: 'host-reply', to: origin, requestId: msg.requestId, app: msg.app, component: msg.component.name, verdict: answer.verdict, ...(answer.reason === undefined ? {} : { reason: answer.reason }) },
  });
  const app = state.apps.get(appKey(origin, msg.app));
  if (answer.fresh && answer.verdict === 'NACK' && app !== undefined) {
    // Open mode: its vote on the component would keep others from bidding on it.
    app.declined.add(msg.component.name);
    rebid(state, now);
  }
  if (!answer.fresh || answer.verdict !== 'ACK') return;
  out.events.push({ type: 'host', app: msg.app, origin, component: msg.component });
  app?.settled.add(msg.component.name);
  const reservation = state.reservations.get(appKey(origin, msg.app));
  if (reservation !== undefined) reservation.items = reservation.items.filter((i) => i.component.name !== msg.component.name);
  rebid(state, now);
}

/** DEL: the origin withdrew the app; everything hosted for it is released and acknowledged. */
export function onWithdraw(state: CoreState, msg: AdvertisementMessage, now: number, out: Output): void {
  const app = state.apps.get(appKey(msg.sender, msg.app));
  if (app !== undefined) closeApp(state, app, true, now);
  for (const entry of state.ledger.releaseApp(msg.sender, msg.app)) {
    out.events.push({ type: 'release', app: entry.app, origin: entry.origin, component: entry.component, reason: 'the origin withdrew the app' });
    out.messages.push({ to: entry.origin, body: { kind: 'acknowledge', to: entry.origin, typeAck: 'DEL_ACK', app: entry.app, component: entry.component } });
  }
  rebid(state, now);
}

/** New resources-daemon figures; hosted work above the new slice is reclaimed, origins above their share first. */
export function onResources(step: Step, free: CoreState['free'], scalePercent: number): void {
  const { state, now, out } = step;
  state.free = free;
  state.scalePercent = scalePercent;
  const self = state.config.cluster;
  const entries = state.ledger.entries();
  const sold = entries.filter((e) => e.app.startsWith(SOLD_APP_PREFIX));
  const foreign = entries.filter((e) => e.origin !== self && !e.app.startsWith(SOLD_APP_PREFIX));
  const room = atLeastZero(subtract(offeredCapacity(free, scalePercent), sum(sold.map((e) => e.resources))));
  for (const victim of reclaim(foreign, room, state.config.weights)) {
    state.ledger.release(victim.origin, victim.app, victim.component);
    out.events.push({ type: 'release', app: victim.app, origin: victim.origin, component: victim.component, reason: 'reclaimed: local demand returned' });
    out.messages.push({ to: victim.origin, body: { kind: 'acknowledge', to: victim.origin, typeAck: 'DEL_ACK', app: victim.app, component: victim.component } });
  }
  rebid(state, now);
}
