// The consumer asks the provider for a carried pod's log (what `kubectl logs` asks a kubelet,
// follow=false; a followed log is asked again with sinceTime, peering/log-follow.ts). The
// contract id and the pod's uid are what the provider checks it against.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { PodRef } from './peer-pod.ts';

/** The largest log an answer carries (a bus message holds 1 MiB); a longer one is cut to its end. */
export const MAX_LOG_BYTES = 256 * 1024;

export const LogOptions = Type.Object({
  container: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  tailLines: Type.Optional(Type.Integer({ minimum: 0 })),
  limitBytes: Type.Optional(Type.Integer({ minimum: 1 })),
  sinceSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
  /** RFC 3339 to the second (a followed log's next read). */
  sinceTime: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$' })),
  timestamps: Type.Optional(Type.Boolean()),
  previous: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type LogOptions = Static<typeof LogOptions>;

export const PodLogRequestMessage = message('rear-pod-log-request', {
  to: ClusterId,
  requestId: Type.String({ minLength: 1, maxLength: 64 }),
  contractId: Type.String({ minLength: 1, maxLength: 253 }),
  pod: PodRef,
  options: LogOptions,
});
export type PodLogRequestMessage = Static<typeof PodLogRequestMessage>;
