// Acknowledge (thesis ch. 7, Listing 7.14): a host tells an app's origin that one of its components
// was deployed (ADD_ACK), removed (DEL_ACK) or modified (MOD_ACK).
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const ACK_TYPES = ['ADD_ACK', 'DEL_ACK', 'MOD_ACK'] as const;

export const AcknowledgeMessage = message('acknowledge', {
  to: ClusterId,
  typeAck: Type.Union(ACK_TYPES.map((t) => Type.Literal(t))),
  app: Name,
  component: Name,
});
export type AcknowledgeMessage = Static<typeof AcknowledgeMessage>;
