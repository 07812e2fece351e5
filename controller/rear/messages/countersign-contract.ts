// The buyer's countersignature, carried back to the seller hop by hop as a purchase is: the
// seller checks both signatures against the parties' keys and keeps it on its Contract.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { Path, RequestId } from './wire.ts';

export const CountersignContractMessage = message('rear-countersign', {
  to: ClusterId,
  requestId: RequestId,
  path: Path,
  seller: ClusterId,
  sellerDomain: Type.String({ minLength: 1, maxLength: 253 }),
  buyer: ClusterId,
  contractId: Type.String({ minLength: 1, maxLength: 253 }),
  buyerSignature: Type.String({ minLength: 1, maxLength: 200 }),
});
export type CountersignContractMessage = Static<typeof CountersignContractMessage>;
