// Advertisement (thesis ch. 7, Listing 7.2): an origin announces an application to the federation
// (ADD), withdraws it (DEL) or changes it (MOD). `sealed` picks the auction mode (thesis ch. 9).
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Component, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const ADVERTISEMENT_TYPES = ['ADD', 'DEL', 'MOD'] as const;

export const AdvertisementMessage = message('advertisement', {
  type: Type.Union(ADVERTISEMENT_TYPES.map((t) => Type.Literal(t))),
  app: Name,
  baseCluster: ClusterId,
  components: Type.Array(Component, { maxItems: 64, description: 'Empty for DEL.' }),
  sealed: Type.Boolean({ description: 'Votes go only to baseCluster, which decides.' }),
});
export type AdvertisementMessage = Static<typeof AdvertisementMessage>;
