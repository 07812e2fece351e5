// LIST_FLAVOURS: a node asks its supernode (and a supernode the supernodes it knows) for the
// flavours matching a selector.
import type { Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { Path, RequestId, WireSelector } from './wire.ts';

export const ListFlavoursMessage = message('rear-list-flavours', {
  to: ClusterId,
  requestId: RequestId,
  selector: WireSelector,
  path: Path,
});
export type ListFlavoursMessage = Static<typeof ListFlavoursMessage>;
