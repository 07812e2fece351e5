// Reclaim call (the DRONE design's reclaim, one move at most per arriving job): an origin whose job
// could not be placed whole asks the live providers what they could give it, counting placed
// components that have not launched and could move elsewhere.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Component, Name, Recipients } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const ReclaimCallMessage = message('reclaim-call', {
  app: Name,
  baseCluster: ClusterId,
  components: Type.Array(Component, { minItems: 1, maxItems: 64 }),
  to: Type.Optional(ClusterId),
  recipients: Recipients,
});
export type ReclaimCallMessage = Static<typeof ReclaimCallMessage>;
