// RESERVE_FLAVOUR: the buyer's request, carried hop by hop through its supernode and the seller's
// supernode to the seller.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { FlavourId, Path, RequestId, WireResources } from './wire.ts';

export const ReserveFlavourMessage = message('rear-reserve', {
  to: ClusterId,
  requestId: RequestId,
  path: Path,
  seller: ClusterId,
  sellerDomain: Type.String({ minLength: 1, maxLength: 253 }),
  flavourId: FlavourId,
  buyer: ClusterId,
  partition: Type.Optional(WireResources),
  units: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type ReserveFlavourMessage = Static<typeof ReserveFlavourMessage>;
