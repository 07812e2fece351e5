// Move request: the origin that reclaims asks the origin of a placed component (the only cluster
// that commits that app) to move it from one host to another. Retransmissions keep the moveId, so
// the request is acted on once and a duplicate gets the same reply.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const MoveRequestMessage = message('move-request', {
  to: ClusterId,
  moveId: Type.String({ minLength: 1, maxLength: 256 }),
  app: Name,
  component: Name,
  from: ClusterId,
  target: ClusterId,
});
export type MoveRequestMessage = Static<typeof MoveRequestMessage>;
