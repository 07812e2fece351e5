// Every message kind of REAR on the federation bus, one codec for all of them. Every kind is
// directed (`to`): each hop sends to the next one, and signs what it sends.
import type { TSchema } from '@sinclair/typebox';
import { MessageCodec } from '../../../shared/bus/codec.ts';
import { ContractEndedMessage } from './contract-ended.ts';
import { CountersignContractMessage } from './countersign-contract.ts';
import { FlavourGoneMessage } from './flavour-gone.ts';
import { FlavoursAnswerMessage } from './flavours-answer.ts';
import { ListFlavoursMessage } from './list-flavours.ts';
import { PurchaseFlavourMessage } from './purchase-flavour.ts';
import { ReserveFlavourMessage } from './reserve-flavour.ts';
import { SaleAnswerMessage } from './sale-answer.ts';
import { PeerPodMessage } from './peer-pod.ts';
import { PeerPodStatusMessage } from './peer-pod-status.ts';
import { PodLogAnswerMessage } from './pod-log-answer.ts';
import { PodLogRequestMessage } from './pod-log-request.ts';

export type { ContractEndedMessage, CountersignContractMessage, FlavourGoneMessage, FlavoursAnswerMessage, ListFlavoursMessage, PeerPodMessage, PeerPodStatusMessage, PodLogAnswerMessage, PodLogRequestMessage, PurchaseFlavourMessage, ReserveFlavourMessage, SaleAnswerMessage };
export type RearMessage = ListFlavoursMessage | FlavoursAnswerMessage | ReserveFlavourMessage | PurchaseFlavourMessage | CountersignContractMessage | ContractEndedMessage | FlavourGoneMessage | SaleAnswerMessage | PeerPodMessage | PeerPodStatusMessage | PodLogRequestMessage | PodLogAnswerMessage;
export type RearKind = RearMessage['kind'];

export const REAR_SCHEMAS: Readonly<Record<RearKind, TSchema>> = {
  'rear-list-flavours': ListFlavoursMessage,
  'rear-flavours': FlavoursAnswerMessage,
  'rear-reserve': ReserveFlavourMessage,
  'rear-purchase': PurchaseFlavourMessage,
  'rear-countersign': CountersignContractMessage,
  'rear-contract-ended': ContractEndedMessage,
  'rear-flavour-gone': FlavourGoneMessage,
  'rear-sale': SaleAnswerMessage,
  'rear-pod': PeerPodMessage,
  'rear-pod-status': PeerPodStatusMessage,
  'rear-pod-log-request': PodLogRequestMessage,
  'rear-pod-log': PodLogAnswerMessage,
};

export function rearCodec(): MessageCodec<RearMessage> {
  return new MessageCodec<RearMessage>(REAR_SCHEMAS);
}
