// The provider's book of sales (pure): RESERVE_FLAVOUR makes a transaction that holds its part
// of the slice until it is purchased or expires; PURCHASE_FLAVOUR turns it into a contract that
// holds it until the contract ends or is withdrawn. The flavours on sale are recomputed from the
// slice minus these holdings (flavours.ts), which is how a flavour shrinks on reservation and is
// restored on expiry or withdrawal. A retransmitted request gets the answer it got before.
import { EdgeshifuError } from '../../../shared/errors.ts';
import { flavoursOf, type CatalogueConfig, type SliceInput } from './flavours.ts';
import type { Contract, Flavour, RearResources, Take, Transaction } from './model.ts';
import { taken } from './take.ts';

export interface Book {
  readonly transactions: readonly Transaction[];
  readonly contracts: readonly Contract[];
}

export const EMPTY_BOOK: Book = { transactions: [], contracts: [] };

export interface Terms {
  /** How long a reservation waits for its purchase. */
  readonly reservationMs: number;
  /** How long a contract lasts when the buyer does not say. */
  readonly contractMs: number;
  /** Longest contract sold. */
  readonly maxContractMs: number;
}

export interface ReserveRequest {
  readonly flavourId: string;
  readonly buyer: string;
  readonly requestId?: string;
  readonly take?: Take;
}

/** What the provider sells from: its slice, configuration and terms. */
export interface Seller {
  readonly slice: SliceInput;
  readonly config: CatalogueConfig;
  readonly terms: Terms;
}

/** When a request is applied, and the id a new transaction or contract gets. */
export interface Stamp {
  readonly now: number;
  readonly id: string;
}

export interface PurchaseRequest {
  readonly transactionId: string;
  readonly flavourId: string;
  readonly buyer: string;
  readonly durationMs?: number;
}

/** What the book holds on the slice: every live transaction and contract. */
export function holdings(book: Book): RearResources[] {
  return [...book.transactions.map((t) => t.resources), ...book.contracts.map((c) => c.resources)];
}

/** The flavours on sale: the slice minus DRONE's hosted work and this book's holdings. */
export function catalogue(slice: SliceInput, book: Book, config: CatalogueConfig): Flavour[] {
  return flavoursOf({ offered: slice.offered, held: [...slice.held, ...holdings(book)] }, config);
}

export function reserve(seller: Seller, book: Book, request: ReserveRequest, stamp: Stamp): { book: Book; transaction: Transaction; fresh: boolean } {
  const { slice, config, terms } = seller;
  const { now, id: transactionId } = stamp;
  if (request.requestId !== undefined) {
    const earlier = book.transactions.find((t) => t.buyer === request.buyer && t.requestId === request.requestId);
    if (earlier !== undefined) return { book, transaction: earlier, fresh: false };
  }
  const flavour = catalogue(slice, book, config).find((f) => f.id === request.flavourId);
  if (flavour === undefined) throw new EdgeshifuError('not-found', `flavour ${request.flavourId} is not on sale any more (reserved by another buyer, or withdrawn): list the flavours again`);
  const { resources, price } = taken(flavour, request.take ?? {}, config.rate);
  const transaction: Transaction = {
    transactionId, flavourId: flavour.id, buyer: request.buyer, resources, flavour, price, startTime: now, expiresAt: now + terms.reservationMs,
    ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
  };
  return { book: { ...book, transactions: [...book.transactions, transaction] }, transaction, fresh: true };
}

/** The namespace the buyer's pods run in on this cluster (the offload path's hosted namespace). */
export function peeringNamespace(buyer: string): string {
  return `rear-${buyer}`;
}

export function purchase(seller: Seller, book: Book, request: PurchaseRequest, stamp: Stamp): { book: Book; contract: Contract; fresh: boolean } {
  const { config, terms } = seller;
  const { now, id: contractId } = stamp;
  const earlier = book.contracts.find((c) => c.transactionId === request.transactionId);
  if (earlier !== undefined) {
    if (earlier.buyer !== request.buyer) throw new EdgeshifuError('forbidden', `transaction ${request.transactionId} belongs to another buyer`);
    return { book, contract: earlier, fresh: false };
  }
  const transaction = book.transactions.find((t) => t.transactionId === request.transactionId);
  if (transaction === undefined || transaction.expiresAt <= now) {
    throw new EdgeshifuError('not-found', `transaction ${request.transactionId} is unknown or expired: reserve the flavour again`);
  }
  if (transaction.buyer !== request.buyer) throw new EdgeshifuError('forbidden', `transaction ${request.transactionId} belongs to another buyer`);
  if (transaction.flavourId !== request.flavourId) throw new EdgeshifuError('invalid', `transaction ${request.transactionId} reserved flavour ${transaction.flavourId}, not ${request.flavourId}`);
  const duration = request.durationMs ?? terms.contractMs;
  if (!(duration > 0 && duration <= terms.maxContractMs)) throw new EdgeshifuError('invalid', `contract duration must be more than 0 and at most ${terms.maxContractMs} ms, got ${duration}`);
  const contract: Contract = {
    contractId, transactionId: transaction.transactionId, flavourId: transaction.flavourId, buyer: transaction.buyer, seller: config.owner,
    resources: transaction.resources, architecture: transaction.flavour.architecture, price: transaction.price, startTime: now, expiresAt: now + duration,
    peering: { cluster: config.owner.cluster, namespace: peeringNamespace(transaction.buyer) },
  };
  return { book: { transactions: book.transactions.filter((t) => t !== transaction), contracts: [...book.contracts, contract] }, contract, fresh: true };
}

/** Drops what is past its time: unpurchased transactions (their resources return) and ended contracts. */
export function expire(book: Book, now: number): { book: Book; expired: Transaction[]; ended: Contract[] } {
  const expired = book.transactions.filter((t) => t.expiresAt <= now);
  const ended = book.contracts.filter((c) => c.expiresAt <= now);
  if (expired.length === 0 && ended.length === 0) return { book, expired, ended };
  return { book: { transactions: book.transactions.filter((t) => t.expiresAt > now), contracts: book.contracts.filter((c) => c.expiresAt > now) }, expired, ended };
}

/** The provider withdraws a contract (or the buyer ends it): its resources return at once. */
export function withdraw(book: Book, contractId: string): { book: Book; withdrawn?: Contract } {
  const withdrawn = book.contracts.find((c) => c.contractId === contractId);
  if (withdrawn === undefined) return { book };
  return { book: { ...book, contracts: book.contracts.filter((c) => c !== withdrawn) }, withdrawn };
}

/** The earliest time something in the book expires (the reconciler's next wake-up). */
export function nextExpiry(book: Book): number | undefined {
  const times = [...book.transactions.map((t) => t.expiresAt), ...book.contracts.map((c) => c.expiresAt)];
  return times.length === 0 ? undefined : Math.min(...times);
}
