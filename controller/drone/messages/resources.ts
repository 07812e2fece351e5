// Resources (thesis ch. 7, Listing 7.4): the resources daemon tells its own agent what the cluster
// has free (allocatable minus requests of running pods, and the pods the nodes still take); local
// traffic, never federated. Without `pods`, the cluster is not limited by pods.
import { Type, type Static } from '@sinclair/typebox';
import { Resources } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const ResourcesMessage = message('resources', {
  free: Resources,
  scalePercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Share of free offered to the federation (thesis scale).' })),
});
export type ResourcesMessage = Static<typeof ResourcesMessage>;
