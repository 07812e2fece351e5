// ACK/NACK (DRONE v2 workflow, step 14): the host's answer to an OffloadRequest. ACK reserves the
// slice for the origin (a HostRequest ACCEPTED); NACK says why it cannot host.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const HostReplyMessage = message('host-reply', {
  to: ClusterId,
  requestId: Type.String({ minLength: 1, maxLength: 256 }),
  app: Name,
  component: Name,
  verdict: Type.Union([Type.Literal('ACK'), Type.Literal('NACK')]),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type HostReplyMessage = Static<typeof HostReplyMessage>;
