// PURCHASE_FLAVOUR: the buyer buys a reservation before it expires, hop by hop to the seller.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { FlavourId, Path, RequestId } from './wire.ts';

export const PurchaseFlavourMessage = message('rear-purchase', {
  to: ClusterId,
  requestId: RequestId,
  path: Path,
  seller: ClusterId,
  sellerDomain: Type.String({ minLength: 1, maxLength: 253 }),
  transactionId: Type.String({ minLength: 1, maxLength: 253 }),
  flavourId: FlavourId,
  buyer: ClusterId,
  durationMs: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type PurchaseFlavourMessage = Static<typeof PurchaseFlavourMessage>;
