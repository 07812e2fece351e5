// The bodies REAR's agent sends, made from the core's values (pure): a forwarded message's body
// without its envelope, a RESERVE's take, a transaction on the wire, a refusal as an error.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Take, Transaction } from './core/model.ts';
import type { RearMessage, ReserveFlavourMessage, SaleAnswerMessage } from './messages/index.ts';

/** A refusal the seller sent (not a failure on this side): the Solver classifies these (core/refusals.ts). */
export class SellerRefusal extends EdgeshifuError {
  override readonly name = 'SellerRefusal';
}

export function refusalError(answer: SaleAnswerMessage): SellerRefusal {
  return new SellerRefusal(answer.refusal?.kind ?? 'internal', answer.refusal?.message ?? 'the seller answered nothing');
}

const ENVELOPE_FIELDS = ['v', 'id', 'sender', 'timestamp', 'hops', 'sig'] as const;

/** The body of a message, without its envelope (a forwarder re-sends it under its own). */
export function strip(m: RearMessage): Record<string, unknown> {
  return Object.fromEntries(Object.entries(m).filter(([k]) => !(ENVELOPE_FIELDS as readonly string[]).includes(k)));
}

export function takeOf(m: ReserveFlavourMessage): Take {
  return { ...(m.partition === undefined ? {} : { partition: m.partition }), ...(m.units === undefined ? {} : { units: m.units }) };
}

export function wireTransaction(t: Transaction): NonNullable<SaleAnswerMessage['transaction']> {
  return { transactionId: t.transactionId, flavourId: t.flavourId, buyer: t.buyer, resources: t.resources, price: t.price, startTime: t.startTime, expiresAt: t.expiresAt };
}
