// A provider's side of a reclaim call: its room left and what it holds that may move, sent only to
// the origin that called. The same offer is what the origin counts for itself.
import { hostedOf } from '../auction/budget.ts';
import { SOLD_APP_PREFIX } from '../host-ledger.ts';
import type { ReclaimCallMessage } from '../messages/index.ts';
import { atLeastZero, subtract } from '../model.ts';
import type { ReclaimOffer } from './reclaim-decide.ts';
import type { CoreState, Output } from './state.ts';
import { capacityView } from './view.ts';

/** Hard limits left (as the host admits) and the hosted components that may move: not pinned (launched), not sold, not being moved. */
export function offerOf(state: CoreState): ReclaimOffer {
  const view = capacityView(state);
  const hosted = hostedOf(view);
  const moving = new Set([...state.moves.values()].filter((m) => m.phase === 'reserving' || m.phase === 'releasing').map((m) => `${state.config.cluster}/${m.app}/${m.component}`));
  const movable = state.ledger.current()
    .filter((e) => e.pinned !== true && !e.app.startsWith(SOLD_APP_PREFIX) && !moving.has(`${e.origin}/${e.app}/${e.component}`))
    .map((e) => ({ origin: e.origin, app: e.app, component: e.component, resources: e.resources }));
  return {
    cluster: state.config.cluster,
    room: atLeastZero(subtract(view.offered, hosted.foreign)),
    free: atLeastZero(subtract(view.free, hosted.all)),
    movable,
  };
}

export function onReclaimCall(state: CoreState, msg: ReclaimCallMessage, out: Output): void {
  if (msg.baseCluster !== msg.sender) return;
  const { room, free, movable } = offerOf(state);
  out.messages.push({ to: msg.sender, body: { kind: 'reclaim-offer', to: msg.sender, app: msg.app, room, free, movable: movable.slice(0, 256) } });
}
