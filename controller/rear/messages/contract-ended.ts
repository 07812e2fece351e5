// The seller tells the buyer a contract ended before its time (withdrawn): sent back along the
// path its purchase came by, each hop forwarding to the one before it, as answers go.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { Path } from './wire.ts';

export const ContractEndedMessage = message('rear-contract-ended', {
  to: ClusterId,
  path: Path,
  seller: ClusterId,
  buyer: ClusterId,
  contractId: Type.String({ minLength: 1, maxLength: 253 }),
  reason: Type.Union([Type.Literal('withdrawn'), Type.Literal('ended')]),
  message: Type.String({ maxLength: 1024 }),
});
export type ContractEndedMessage = Static<typeof ContractEndedMessage>;
