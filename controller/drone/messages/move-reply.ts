// Move reply: the moved component's origin tells the reclaiming origin that the move is done (the
// new host holds it and the old one gave it back) or refused (nothing moved), with the reason.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const MOVE_OUTCOMES = ['moved', 'refused'] as const;

export const MoveReplyMessage = message('move-reply', {
  to: ClusterId,
  moveId: Type.String({ minLength: 1, maxLength: 256 }),
  outcome: Type.Union(MOVE_OUTCOMES.map((o) => Type.Literal(o))),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type MoveReplyMessage = Static<typeof MoveReplyMessage>;
