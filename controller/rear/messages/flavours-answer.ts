// The OK answer to LIST_FLAVOURS, with the flavours found (maybe none), sent back one hop along
// the request's path; `source` says where the answering supernode found them.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { Path, RequestId, WireFlavour } from './wire.ts';

export const FlavoursAnswerMessage = message('rear-flavours', {
  to: ClusterId,
  requestId: RequestId,
  path: Path,
  source: Type.Union([Type.Literal('own'), Type.Literal('cache'), Type.Literal('asked')]),
  flavours: Type.Array(WireFlavour, { maxItems: 256 }),
});
export type FlavoursAnswerMessage = Static<typeof FlavoursAnswerMessage>;
