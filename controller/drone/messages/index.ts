// Every message kind of the DRONE protocol, one codec for all of them.
import type { TSchema } from '@sinclair/typebox';
import { MessageCodec } from '../../../shared/bus/codec.ts';
import { AcknowledgeMessage } from './acknowledge.ts';
import { AdvertisementMessage } from './advertisement.ts';
import { HostReplyMessage } from './host-reply.ts';
import { HostStatusMessage } from './host-status.ts';
import { LaunchGrantMessage } from './launch-grant.ts';
import { LeaseMessage } from './lease.ts';
import { LeaseRenewalMessage } from './lease-renewal.ts';
import { LeaseRenewedMessage } from './lease-renewed.ts';
import { MoveReleaseMessage } from './move-release.ts';
import { MoveReplyMessage } from './move-reply.ts';
import { MoveRequestMessage } from './move-request.ts';
import { OffloadRequestMessage } from './offload-request.ts';
import { ReclaimCallMessage } from './reclaim-call.ts';
import { ReclaimOfferMessage } from './reclaim-offer.ts';
import { ResourcesMessage } from './resources.ts';
import { SealedVoteMessage } from './sealed-vote.ts';
import { SliceAdvertMessage } from './slice-advert.ts';
import { SolutionMessage } from './solution.ts';
import { VotesMessage } from './votes.ts';

export type { AcknowledgeMessage, AdvertisementMessage, HostReplyMessage, HostStatusMessage, LaunchGrantMessage, LeaseMessage, LeaseRenewalMessage, LeaseRenewedMessage, MoveReleaseMessage, MoveReplyMessage, MoveRequestMessage, OffloadRequestMessage, ReclaimCallMessage, ReclaimOfferMessage, ResourcesMessage, SealedVoteMessage, SliceAdvertMessage, SolutionMessage, VotesMessage };

export type DroneMessage = AdvertisementMessage | ResourcesMessage | VotesMessage | SealedVoteMessage | SolutionMessage
  | OffloadRequestMessage | HostReplyMessage | AcknowledgeMessage | SliceAdvertMessage | LeaseMessage | HostStatusMessage
  | LeaseRenewalMessage | LeaseRenewedMessage | LaunchGrantMessage
  | ReclaimCallMessage | ReclaimOfferMessage | MoveRequestMessage | MoveReleaseMessage | MoveReplyMessage;
export type DroneKind = DroneMessage['kind'];

export const DRONE_SCHEMAS: Readonly<Record<DroneKind, TSchema>> = {
  'advertisement': AdvertisementMessage,
  'resources': ResourcesMessage,
  'votes': VotesMessage,
  'sealed-vote': SealedVoteMessage,
  'solution': SolutionMessage,
  'offload-request': OffloadRequestMessage,
  'host-reply': HostReplyMessage,
  'acknowledge': AcknowledgeMessage,
  'slice-advert': SliceAdvertMessage,
  'lease': LeaseMessage,
  'host-status': HostStatusMessage,
  'lease-renewal': LeaseRenewalMessage,
  'lease-renewed': LeaseRenewedMessage,
  'launch-grant': LaunchGrantMessage,
  'reclaim-call': ReclaimCallMessage,
  'reclaim-offer': ReclaimOfferMessage,
  'move-request': MoveRequestMessage,
  'move-release': MoveReleaseMessage,
  'move-reply': MoveReplyMessage,
};

/** Kinds sent to one cluster (topic `.../to/<recipient>/<kind>`); the rest are broadcast, except `resources` (local). */
export const DIRECTED_KINDS: ReadonlySet<DroneKind> = new Set(['sealed-vote', 'offload-request', 'host-reply', 'acknowledge', 'lease', 'host-status', 'lease-renewal', 'lease-renewed', 'launch-grant', 'reclaim-offer', 'move-request', 'move-release', 'move-reply']);
export const LOCAL_KINDS: ReadonlySet<DroneKind> = new Set(['resources']);

export function droneCodec(): MessageCodec<DroneMessage> {
  return new MessageCodec<DroneMessage>(DRONE_SCHEMAS);
}

/** A message body without the envelope, as the cores produce it; the shell adds id, sender, timestamp, hops. */
export type DroneBody = DistributiveOmit<DroneMessage, 'v' | 'id' | 'sender' | 'timestamp' | 'hops'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
