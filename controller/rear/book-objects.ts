// The seller's book as Kubernetes objects and back (pure): a Transaction per live reservation, a
// Contract per contract sold. A Transaction keeps the flavour it reserved (an annotation, JSON),
// since the purchase copies the flavour's architecture into the contract. A Contract that has
// left the book stays as a record, its phase Ended or Withdrawn; only Active ones are read back.
import type { KubernetesObject } from '@kubernetes/client-node';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { ContractSpec } from '../../shared/crds/rear.ts';
import type { Static } from '@sinclair/typebox';
import type { TransactionSpec } from '../../shared/crds/rear.ts';
import { isoTime } from '../../shared/time.ts';
import type { Signatures } from './contract-signing.ts';
import type { Book } from './core/provider.ts';
import type { Contract, Flavour, Price, Transaction } from './core/model.ts';
import { fromQuantities, toQuantities } from './quantities.ts';

export const SELLER_LABEL = 'rear.edgeshifu.io/seller';
export const FLAVOUR_ANNOTATION = 'rear.edgeshifu.io/flavour';

type TransactionSpecT = Static<typeof TransactionSpec>;

export interface TransactionObject extends KubernetesObject { spec: TransactionSpecT }
export interface ContractObject extends KubernetesObject { spec: ContractSpec; status?: { phase?: 'Active' | 'Ended' | 'Withdrawn'; verified?: boolean; message?: string } }

const wirePrice = (p: Price): ContractSpec['price'] => ({ amount: String(p.amount), currency: p.currency, period: p.period });
const bookPrice = (p: ContractSpec['price']): Price => ({ amount: Number(p.amount), currency: p.currency, period: p.period });

function meta(name: string, namespace: string, seller: string, annotations?: Record<string, string>): KubernetesObject['metadata'] {
  return { name, namespace, labels: { [SELLER_LABEL]: seller }, ...(annotations === undefined ? {} : { annotations }) };
}

export function transactionObject(t: Transaction, namespace: string, seller: string): TransactionObject {
  return {
    apiVersion: API_VERSION, kind: 'Transaction', metadata: meta(t.transactionId, namespace, seller, { [FLAVOUR_ANNOTATION]: JSON.stringify(t.flavour) }),
    spec: {
      transactionID: t.transactionId, flavorID: t.flavourId, buyer: t.buyer, ...(t.requestId === undefined ? {} : { requestID: t.requestId }),
      resources: toQuantities(t.resources), price: wirePrice(t.price), startTime: isoTime(t.startTime), expiresAt: isoTime(t.expiresAt),
    },
  };
}

export function contractObject(c: Contract, signatures: Signatures, namespace: string): ContractObject {
  return {
    apiVersion: API_VERSION, kind: 'Contract', metadata: meta(c.contractId, namespace, c.seller.cluster),
    spec: {
      contractID: c.contractId, transactionID: c.transactionId, flavorID: c.flavourId, buyer: c.buyer,
      seller: { domain: c.seller.domain, nodeID: c.seller.cluster, address: c.seller.address },
      resources: toQuantities(c.resources), architecture: c.architecture, price: wirePrice(c.price),
      startTime: isoTime(c.startTime), expiresAt: isoTime(c.expiresAt), peering: c.peering,
      signatures: { seller: signatures.seller, ...(signatures.buyer === undefined ? {} : { buyer: signatures.buyer }) },
    },
  };
}

/** The transaction an object records; undefined when its flavour annotation is missing or not JSON (it cannot be purchased). */
export function transactionOf(o: TransactionObject): Transaction | undefined {
  const s = o.spec;
  let flavour: Flavour | null;
  try { flavour = JSON.parse(o.metadata?.annotations?.[FLAVOUR_ANNOTATION] ?? 'null') as Flavour | null; } catch { return undefined; }
  if (flavour === null) return undefined;
  return {
    transactionId: s.transactionID, flavourId: s.flavorID, buyer: s.buyer, ...(s.requestID === undefined ? {} : { requestId: s.requestID }),
    resources: fromQuantities(s.resources, `transaction ${s.transactionID} resources`), flavour, price: bookPrice(s.price),
    startTime: Date.parse(s.startTime), expiresAt: Date.parse(s.expiresAt),
  };
}

export function contractOf(o: ContractObject): { contract: Contract; signatures: Signatures } {
  const s = o.spec;
  return {
    contract: {
      contractId: s.contractID, transactionId: s.transactionID, flavourId: s.flavorID, buyer: s.buyer,
      seller: { cluster: s.seller.nodeID, domain: s.seller.domain, address: s.seller.address },
      resources: fromQuantities(s.resources, `contract ${s.contractID} resources`), architecture: s.architecture, price: bookPrice(s.price),
      startTime: Date.parse(s.startTime), expiresAt: Date.parse(s.expiresAt), peering: s.peering,
    },
    signatures: s.signatures,
  };
}

/**
 * The book a restarted seller takes back: live transactions, Active contracts not yet ended. A
 * transaction a contract was made from (in any phase) is settled: a purchase whose write stopped
 * after the Contract, before the Transaction's delete, left both, and holding both is an undersell.
 */
export function bookOf(transactions: readonly TransactionObject[], contracts: readonly ContractObject[], now: number): Book {
  const purchased = new Set(contracts.map((c) => c.spec.transactionID));
  return {
    transactions: transactions.map(transactionOf).filter((t): t is Transaction => t !== undefined && t.expiresAt > now && !purchased.has(t.transactionId)),
    contracts: contracts.filter((c) => (c.status?.phase ?? 'Active') === 'Active').map((c) => contractOf(c).contract).filter((c) => c.expiresAt > now),
  };
}

/** What changed between two books: the objects to write and to retire. */
export function bookChanges(before: Book, after: Book): { added: { transactions: Transaction[]; contracts: Contract[] }; gone: { transactions: Transaction[]; contracts: Contract[] } } {
  const ids = <T>(list: readonly T[], id: (x: T) => string): Set<string> => new Set(list.map(id));
  const tBefore = ids(before.transactions, (t) => t.transactionId);
  const tAfter = ids(after.transactions, (t) => t.transactionId);
  const cBefore = ids(before.contracts, (c) => c.contractId);
  const cAfter = ids(after.contracts, (c) => c.contractId);
  return {
    added: { transactions: after.transactions.filter((t) => !tBefore.has(t.transactionId)), contracts: after.contracts.filter((c) => !cBefore.has(c.contractId)) },
    gone: { transactions: before.transactions.filter((t) => !tAfter.has(t.transactionId)), contracts: before.contracts.filter((c) => !cAfter.has(c.contractId)) },
  };
}
