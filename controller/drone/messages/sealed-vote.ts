// Sealed vote (thesis ch. 9): a provider's bids for one app, sent only to the app's origin, so
// no competitor ever sees them.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const SealedVoteMessage = message('sealed-vote', {
  to: ClusterId,
  app: Name,
  bids: Type.Array(Type.Object({
    component: Name,
    value: Type.Integer({ minimum: 0, maximum: 100 }),
  }, { additionalProperties: false }), { maxItems: 64 }),
});
export type SealedVoteMessage = Static<typeof SealedVoteMessage>;
