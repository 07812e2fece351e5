// The seller's answer to RESERVE_FLAVOUR (a transaction) or PURCHASE_FLAVOUR (a contract signed by
// the seller), or its refusal, sent back hop by hop along the request's path.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { WireOwner, WirePrice, WireResources, FlavourId, Path, Refusal, RequestId } from './wire.ts';

export const WireTransaction = Type.Object({
  transactionId: Type.String({ minLength: 1, maxLength: 253 }),
  flavourId: FlavourId,
  buyer: ClusterId,
  resources: WireResources,
  price: WirePrice,
  startTime: Type.Integer({ minimum: 0 }),
  expiresAt: Type.Integer({ minimum: 0 }),
}, { additionalProperties: false });

export const WireContract = Type.Object({
  contractId: Type.String({ minLength: 1, maxLength: 253 }),
  transactionId: Type.String({ minLength: 1, maxLength: 253 }),
  flavourId: FlavourId,
  buyer: ClusterId,
  seller: WireOwner,
  resources: WireResources,
  architecture: Type.String({ minLength: 1, maxLength: 63 }),
  price: WirePrice,
  startTime: Type.Integer({ minimum: 0 }),
  expiresAt: Type.Integer({ minimum: 0 }),
  peering: Type.Object({ cluster: ClusterId, namespace: Type.String({ minLength: 1, maxLength: 63 }) }, { additionalProperties: false }),
}, { additionalProperties: false });

export const SaleAnswerMessage = message('rear-sale', {
  to: ClusterId,
  requestId: RequestId,
  path: Path,
  transaction: Type.Optional(WireTransaction),
  contract: Type.Optional(WireContract),
  sellerSignature: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  refusal: Type.Optional(Refusal),
});
export type SaleAnswerMessage = Static<typeof SaleAnswerMessage>;
