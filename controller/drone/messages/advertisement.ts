// Advertisement (thesis ch. 7, Listing 7.2): an origin announces an application to the federation
// (ADD), withdraws it (DEL) or changes it (MOD). `sealed` picks the auction mode (thesis ch. 9).
// The origin calls only some providers to bid (auction/candidates.ts): in sealed mode it sends
// the advertisement to each of them (`to`), in open mode it broadcasts it naming them (`bidders`).
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Recipients, Component, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const ADVERTISEMENT_TYPES = ['ADD', 'DEL', 'MOD'] as const;

export const AdvertisementMessage = message('advertisement', {
  type: Type.Union(ADVERTISEMENT_TYPES.map((t) => Type.Literal(t))),
  app: Name,
  baseCluster: ClusterId,
  components: Type.Array(Component, { maxItems: 64, description: 'Empty for DEL.' }),
  sealed: Type.Boolean({ description: 'Votes go only to baseCluster, which decides.' }),
  to: Type.Optional(ClusterId),
  recipients: Recipients,
  bidders: Type.Optional(Type.Array(ClusterId, { maxItems: 4096, description: 'The providers called to bid; absent: every provider may.' })),
});
export type AdvertisementMessage = Static<typeof AdvertisementMessage>;
