// The provider's market (thin shell over core/provider.ts): the book of sales in memory, one
// request applied at a time (a queue: two buyers racing for the last flavour are ordered, the
// second finds it gone), each change persisted (`persist`, e.g. Transaction and Contract
// resources) before it is answered, the contracts signed by the seller.
import { randomUUID } from 'node:crypto';
import type { Keyring } from '../../shared/bus/signing.ts';
import { sellerSigns, verifyContract, type SignedContract } from './contract-signing.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import { catalogue, EMPTY_BOOK, expire, nextExpiry, purchase, reserve, withdraw, type Book, type PurchaseRequest, type ReserveRequest, type Terms } from './core/provider.ts';
import type { CatalogueConfig, SliceInput } from './core/flavours.ts';
import type { Contract, Flavour, Transaction } from './core/model.ts';
import { select, validateSelector, type Selector } from './core/selector.ts';

export interface MarketOptions {
  readonly config: CatalogueConfig;
  readonly terms: Terms;
  readonly keyring: Keyring;
  /** What DRONE's slicing offers now, and what DRONE holds on it. */
  readonly slice: () => SliceInput;
  readonly clock?: () => number;
  /** Stores the book once changed, before the answer leaves (a restart then finds it). */
  readonly persist?: (book: Book) => Promise<void>;
  /**
   * What the book holds, told the moment a change is decided (before its persist: DRONE's ledger
   * must count a sale while it is being stored, or DRONE admits work into it), and told the old
   * book again when the persist fails.
   */
  readonly hold?: (book: Book) => void;
  readonly book?: Book;
  /** Keeps the buyer's countersignature once both signatures verify (e.g. on the Contract resource). */
  readonly countersigned?: (signed: SignedContract) => Promise<void>;
}

export class Market {
  private book: Book;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly signed = new Map<string, SignedContract>();
  private readonly options: MarketOptions;

  constructor(options: MarketOptions) {
    this.options = options;
    this.book = options.book ?? EMPTY_BOOK;
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  /** Runs `change` after every earlier one, persisting the book it returns. */
  private serial<T>(change: (book: Book) => { book: Book; result: T }): Promise<T> {
    const run = this.queue.then(async () => {
      const { book, result } = change(expire(this.book, this.now()).book);
      if (book !== this.book) {
        this.options.hold?.(book);
        try {
          await this.options.persist?.(book);
        } catch (err) {
          this.options.hold?.(this.book);
          throw err;
        }
        this.book = book;
      }
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  current(): Book {
    return expire(this.book, this.now()).book;
  }

  flavours(selector: Selector = {}): Flavour[] {
    validateSelector(selector);
    return select(catalogue(this.options.slice(), this.current(), this.options.config), selector);
  }

  reserve(request: ReserveRequest): Promise<Transaction> {
    return this.serial((book) => {
      const seller = { slice: this.options.slice(), config: this.options.config, terms: this.options.terms };
      const out = reserve(seller, book, request, { now: this.now(), id: `tx-${randomUUID()}` });
      return { book: out.book, result: out.transaction };
    });
  }

  purchase(request: PurchaseRequest): Promise<SignedContract> {
    return this.serial((book) => {
      const seller = { slice: this.options.slice(), config: this.options.config, terms: this.options.terms };
      const out = purchase(seller, book, request, { now: this.now(), id: `contract-${randomUUID()}` });
      const signed = this.signed.get(out.contract.contractId) ?? sellerSigns(this.options.keyring, out.contract);
      this.signed.set(out.contract.contractId, signed);
      return { book: out.book, result: signed };
    });
  }

  /** The buyer's countersignature: both signatures must verify against the parties' keys. */
  async countersign(contractId: string, buyer: string, buyerSignature: string): Promise<SignedContract> {
    const contract = this.current().contracts.find((c) => c.contractId === contractId);
    if (contract === undefined) throw new EdgeshifuError('not-found', `contract ${contractId} is unknown or has ended`);
    if (contract.buyer !== buyer) throw new EdgeshifuError('forbidden', `contract ${contractId} belongs to another buyer`);
    const signed = { contract, signatures: { seller: sellerSigns(this.options.keyring, contract).signatures.seller, buyer: buyerSignature } };
    if (!verifyContract(this.options.keyring, signed, contract.seller.cluster)) throw new EdgeshifuError('forbidden', `contract ${contractId}: the buyer's countersignature does not verify against ${buyer}'s key`);
    await this.options.countersigned?.(signed);
    this.signed.set(contractId, signed);
    return signed;
  }

  withdraw(contractId: string): Promise<Contract | undefined> {
    return this.serial((book) => {
      const out = withdraw(book, contractId);
      this.signed.delete(contractId);
      return { book: out.book, result: out.withdrawn };
    });
  }

  /** When the book (as stored, expired entries still in it) next has something to drop. */
  nextExpiry(): number | undefined {
    return nextExpiry(this.book);
  }

  /** Drops what has expired (the shell calls it at the book's next expiry). */
  sweep(): Promise<void> {
    return this.serial((book) => ({ book, result: undefined }));
  }
}
