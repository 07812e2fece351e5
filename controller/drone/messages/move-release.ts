// Move release: once the new host has accepted a moved component, its origin tells the old host to
// give it back (acknowledged with DEL_ACK; sent again until then, and releasing twice is harmless).
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const MoveReleaseMessage = message('move-release', {
  to: ClusterId,
  moveId: Type.String({ minLength: 1, maxLength: 256 }),
  app: Name,
  component: Name,
});
export type MoveReleaseMessage = Static<typeof MoveReleaseMessage>;
