// The seller's book kept in Transaction and Contract resources (thin shell over
// book-objects.ts): the Market's `persist` hook writes what changed before the answer leaves, so a
// seller restarted between reserve and purchase still sells the purchase, and `load` gives the
// book back at start. A contract that leaves the book keeps its record, phase Ended or Withdrawn.
import type { KubernetesListObject } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { kubeStatusOf } from '../../shared/kube/errors.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { Signatures } from './contract-signing.ts';
import type { Book } from './core/provider.ts';
import { EMPTY_BOOK } from './core/provider.ts';
import type { Contract } from './core/model.ts';
import { bookChanges, bookOf, contractObject, SELLER_LABEL, transactionObject, type ContractObject, type TransactionObject } from './book-objects.ts';

export interface BookStoreOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly seller: string;
  /** The seller's signature of a contract (deterministic: Ed25519). */
  readonly sign: (contract: Contract) => Signatures;
  readonly clock?: () => number;
}

/** The path a contract's purchase came by, comma-separated: its buyer is told along it when the contract is withdrawn. */
export const ROUTE_ANNOTATION = 'rear.edgeshifu.io/route';
const APPLY = { contentType: 'application/apply-patch+yaml', query: { fieldManager: 'edgeshifu-rear', force: true } } as const;
const MERGE = 'application/merge-patch+json';

export class BookStore {
  private readonly o: BookStoreOptions;
  private last: Book = EMPTY_BOOK;
  /** The path each live contract's purchase came by (where to tell its buyer it ended), from the Contracts' annotation. */
  readonly routes = new Map<string, readonly string[]>();

  constructor(options: BookStoreOptions) {
    this.o = options;
  }

  private path(plural: 'transactions' | 'contracts', name?: string): string {
    return `/apis/${API_VERSION}/namespaces/${this.o.namespace}/${plural}${name === undefined ? '' : `/${name}`}`;
  }

  /** The book the resources hold (what a restarted seller sells from). */
  async load(): Promise<Book> {
    const query = { labelSelector: `${SELLER_LABEL}=${this.o.seller}` };
    const transactions = await this.o.client.request<KubernetesListObject<TransactionObject>>('GET', this.path('transactions'), { query });
    const contracts = await this.o.client.request<KubernetesListObject<ContractObject>>('GET', this.path('contracts'), { query });
    const now = (this.o.clock ?? Date.now)();
    this.last = bookOf(transactions.items, contracts.items, now);
    // what ended while no seller ran, and a Transaction left by a purchase's half-done write, is retired now
    const live = new Set([...this.last.transactions.map((t) => t.transactionId)]);
    for (const t of transactions.items) if (!live.has(t.spec.transactionID)) await this.remove('transactions', t.spec.transactionID);
    const active = new Set(this.last.contracts.map((c) => c.contractId));
    for (const c of contracts.items) {
      const route = c.metadata?.annotations?.[ROUTE_ANNOTATION];
      if (route !== undefined && active.has(c.spec.contractID)) this.routes.set(c.spec.contractID, route.split(','));
    }
    for (const c of contracts.items) if ((c.status?.phase ?? 'Active') === 'Active' && !active.has(c.spec.contractID)) await this.retire(c.spec.contractID, true);
    return this.last;
  }

  /** Keeps the path a contract's purchase came by. */
  async keepRoute(contractId: string, path: readonly string[]): Promise<void> {
    this.routes.set(contractId, path);
    await this.o.client.request('PATCH', this.path('contracts', contractId), { body: { metadata: { annotations: { [ROUTE_ANNOTATION]: path.join(',') } } }, contentType: MERGE });
  }

  /** The Market's hook: writes what changed since the last book; returns the contracts withdrawn before their time. */
  async persist(book: Book): Promise<Contract[]> {
    const { added, gone } = bookChanges(this.last, book);
    const now = (this.o.clock ?? Date.now)();
    for (const t of added.transactions) await this.o.client.request('PATCH', this.path('transactions', t.transactionId), { body: transactionObject(t, this.o.namespace, this.o.seller), ...APPLY });
    for (const c of added.contracts) {
      await this.o.client.request('PATCH', this.path('contracts', c.contractId), { body: contractObject(c, this.o.sign(c), this.o.namespace), ...APPLY });
      await this.status(c.contractId, { phase: 'Active', verified: false, message: 'signed by the seller; waiting for the buyer\'s countersignature' });
    }
    for (const t of gone.transactions) await this.remove('transactions', t.transactionId);
    for (const c of gone.contracts) await this.retire(c.contractId, c.expiresAt <= now);
    this.last = book;
    return gone.contracts.filter((c) => c.expiresAt > now);
  }

  /** The buyer's countersignature, verified by the caller: kept on the Contract. */
  async countersigned(contractId: string, buyer: string): Promise<void> {
    await this.o.client.request('PATCH', this.path('contracts', contractId), { body: { spec: { signatures: { buyer } } }, contentType: MERGE });
    await this.status(contractId, { phase: 'Active', verified: true, message: 'signed by both sides' });
  }

  private async status(contractId: string, status: ContractObject['status']): Promise<void> {
    await this.o.client.request('PATCH', this.path('contracts', contractId) + '/status', { body: { status }, contentType: MERGE });
  }

  private async retire(contractId: string, ended: boolean): Promise<void> {
    await this.status(contractId, ended ? { phase: 'Ended', message: 'the contract\'s time is over; its resources are free again' } : { phase: 'Withdrawn', message: 'withdrawn before its end; its resources are free again' })
      .catch((err: unknown) => { if (kubeStatusOf(err)?.code !== 404) throw err; });
  }

  private async remove(plural: 'transactions', name: string): Promise<void> {
    await this.o.client.request('DELETE', this.path(plural, name)).catch((err: unknown) => { if (kubeStatusOf(err)?.code !== 404) throw err; });
  }
}
