// The consumer's kubelet side to the provider: run (or stop) one pod bound to the virtual node of
// a contract. Sent on every change and again as a renewal, so a lost one costs nothing; the
// contract id is what authorises it on the provider.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';

const Name = Type.String({ minLength: 1, maxLength: 253 });

/** The consumer's pod: where it is, and its uid (a pod made again under the same name is another pod). */
export const PodRef = Type.Object({ namespace: Type.String({ minLength: 1, maxLength: 63 }), name: Name, uid: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
export type PodRef = Static<typeof PodRef>;

export const PeerPodMessage = message('rear-pod', {
  to: ClusterId,
  contractId: Name,
  pod: PodRef,
  spec: Type.Optional(Type.Unknown({ description: 'The pod spec; the provider validates it as it does an offloaded component\'s.' })),
  delete: Type.Optional(Type.Boolean({ description: 'The pod was deleted on the consumer.' })),
});
export type PeerPodMessage = Static<typeof PeerPodMessage>;
