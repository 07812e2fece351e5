// Reclaim offer: a provider's answer to a reclaim call, only to the origin that called (sealed or
// open alike: the origin alone decides). Its room left (hard limits, as a host admits) and what it
// holds that may move: placed components that have not launched, or whose deployment allows it.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name, Resources } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const Movable = Type.Object({
  origin: ClusterId,
  app: Name,
  component: Name,
  resources: Resources,
}, { additionalProperties: false });
export type Movable = Static<typeof Movable>;

export const ReclaimOfferMessage = message('reclaim-offer', {
  to: ClusterId,
  app: Name,
  /** Offered slice not yet hosted: what another origin may still use. */
  room: Resources,
  /** Free capacity not yet hosted: what the cluster's own apps may still use. */
  free: Resources,
  movable: Type.Array(Movable, { maxItems: 256 }),
});
export type ReclaimOfferMessage = Static<typeof ReclaimOfferMessage>;
