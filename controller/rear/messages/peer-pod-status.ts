// The provider's answer about one carried pod: its status as the provider's API server has it, a
// refusal with its reason, or that it is gone; and where its declared ports are reached (a NodePort).
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { ReachablePort } from '../../../shared/crds/drone.ts';
import { PodRef } from './peer-pod.ts';

export const PeerPodStatusMessage = message('rear-pod-status', {
  to: ClusterId,
  contractId: Type.String({ minLength: 1, maxLength: 253 }),
  pod: PodRef,
  state: Type.Union([Type.Literal('running'), Type.Literal('refused'), Type.Literal('gone'), Type.Literal('lost')]),
  status: Type.Optional(Type.Unknown({ description: 'The provider pod\'s status (phase, conditions, container states, IP).' })),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  reach: Type.Optional(Type.Object({
    address: Type.String({ minLength: 1, maxLength: 253 }),
    ports: Type.Array(ReachablePort, { maxItems: 256 }),
  }, { description: 'Where the consumer reaches the pod: the provider\'s node address and, per declared container port, its NodePort.' })),
});
export type PeerPodStatusMessage = Static<typeof PeerPodStatusMessage>;
