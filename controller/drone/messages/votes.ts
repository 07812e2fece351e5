// Votes (thesis DroneMessage): a cluster's view of the vote table of one app and
// the winners it derives from it. Entries merge by newest timestamp per (component, cluster).
// Broadcast when every provider may bid; sent to the origin and each other bidder called (`to`)
// when the origin called only some (auction/candidates.ts): nobody else needs them.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Recipients, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const VoteEntry = Type.Object({
  component: Name,
  cluster: ClusterId,
  value: Type.Integer({ minimum: 0, maximum: 100, description: '0 = released.' }),
  timestamp: Type.Integer({ minimum: 0 }),
}, { additionalProperties: false });
export type VoteEntry = Static<typeof VoteEntry>;

export const VotesMessage = message('votes', {
  app: Name,
  baseCluster: ClusterId,
  entries: Type.Array(VoteEntry, { maxItems: 64 * 256 }),
  winners: Type.Record(Type.String(), ClusterId, { description: 'component -> winning cluster, as the sender sees it.' }),
  round: Type.Integer({ minimum: 0, description: 'Raised on every votes message of the sender: the latest view wins even within one millisecond.' }),
  to: Type.Optional(ClusterId),
  recipients: Recipients,
});
export type VotesMessage = Static<typeof VotesMessage>;
