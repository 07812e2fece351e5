// OffloadRequest (DRONE v2 workflow, steps 6-9): the origin asks the cluster it chose to host one
// component. Retransmissions keep the requestId, so the host answers them from its ledger.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Component, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const OffloadRequestMessage = message('offload-request', {
  to: ClusterId,
  requestId: Type.String({ minLength: 1, maxLength: 256 }),
  app: Name,
  component: Component,
});
export type OffloadRequestMessage = Static<typeof OffloadRequestMessage>;
