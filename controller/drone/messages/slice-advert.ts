// Slice advert (DRONE v2 "Slices advertisement"): what a provider offers the federation now,
// periodically and on change. It reveals only the offer, never the cluster's insides. `offered`
// counts pods when the provider's nodes do; an advert without `pods` (an agent older than pod
// slicing) is accepted and read as "not limited by pods".
import { Type, type Static } from '@sinclair/typebox';
import { Resources } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const SliceAdvertMessage = message('slice-advert', {
  offered: Resources,
  seq: Type.Integer({ minimum: 0, description: 'Raised on every advert; older ones are ignored.' }),
  ttlMs: Type.Integer({ minimum: 1, maximum: 86_400_000, description: 'Peers forget the slice after this long without a new advert.' }),
});
export type SliceAdvertMessage = Static<typeof SliceAdvertMessage>;
