// The provider's answer to a log request: the log (at most MAX_LOG_BYTES, its end kept), or why
// not, with the kind the consumer maps to its HTTP status.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { ERROR_KINDS } from '../../../shared/errors.ts';
import { PodRef } from './peer-pod.ts';

export const PodLogAnswerMessage = message('rear-pod-log', {
  to: ClusterId,
  requestId: Type.String({ minLength: 1, maxLength: 64 }),
  pod: PodRef,
  log: Type.Optional(Type.String()),
  truncated: Type.Optional(Type.Boolean()),
  error: Type.Optional(Type.Object({ kind: Type.Union(ERROR_KINDS.map((k) => Type.Literal(k))), message: Type.String({ maxLength: 2048 }) })),
});
export type PodLogAnswerMessage = Static<typeof PodLogAnswerMessage>;
