// One cluster's REAR agent on the federation bus (thin shell): it answers and forwards REAR's
// messages as flows/steps.ts lists them, decides with the pure cores (core/discovery.ts,
// flows/routing.ts) and sells through its Market. Every message is directed and signed; the bus
// client drops forged, unsigned (signatures required), replayed and stale ones before they get here.
import { randomUUID } from 'node:crypto';
import type { BusClient } from '../../shared/bus/client.ts';
import { agentFilters, directTopic } from '../../shared/bus/topics.ts';
import { EdgeshifuError, errorMessage, isEdgeshifuError } from '../../shared/errors.ts';
import type { Keyring } from '../../shared/bus/signing.ts';
import type { Logger } from '../../shared/log.ts';
import { buyerCountersigns, type SignedContract } from './contract-signing.ts';
import { firstSight, forget, forgetGone, mergeAnswers, remember, supernodeAnswer, type CandidateCache } from './core/discovery.ts';
import type { Flavour, Take } from './core/model.ts';
import type { Selector } from './core/selector.ts';
import { answerHop, goneTargets, isSupernode, nextHop, whomToAsk, type Topology } from './flows/routing.ts';
import type { Market } from './market.ts';
import { refusalError, strip, takeOf, wireTransaction } from './sale-wire.ts';
import { GONE_IDS_MAX } from './messages/flavour-gone.ts';
import type { ContractEndedMessage, CountersignContractMessage, FlavourGoneMessage, FlavoursAnswerMessage, ListFlavoursMessage, PurchaseFlavourMessage, RearMessage, ReserveFlavourMessage, SaleAnswerMessage } from './messages/index.ts';

/** What a purchase is addressed by: the flavour's id and its seller (a Flavour, or a Solver's record of one). */
export interface PurchaseTarget {
  readonly id: string;
  readonly owner: { readonly cluster: string; readonly domain: string };
}

export interface RearNodeOptions {
  readonly bus: BusClient<RearMessage>;
  readonly topology: Topology;
  readonly keyring: Keyring;
  /** What this cluster sells (none: it only buys or relays). */
  readonly market?: Market;
  readonly cacheTtlMs?: number;
  /** How long a supernode waits for those it asked, and a buyer for each try. */
  readonly replyTimeoutMs?: number;
  readonly attempts?: number;
  readonly clock?: () => number;
  readonly logger?: Logger;
  /** The seller: a contract was sold to a buyer that came by `path` (where to tell it the contract ended). */
  readonly sold?: (contractId: string, path: readonly string[]) => void;
  /** The buyer: its seller says a contract ended before its time. */
  readonly ended?: (m: ContractEndedMessage) => Promise<void>;
}

type Body = Parameters<BusClient<RearMessage>['publish']>[1];
type Waiter = (answer: SaleAnswerMessage | FlavoursAnswerMessage) => void;

export class RearNode {
  private readonly o: RearNodeOptions;
  private cache: CandidateCache = new Map();
  /** Flavour-gone notices seen (by seller and notice id), until when kept. */
  private notices: ReadonlyMap<string, number> = new Map();
  private readonly waiting = new Map<string, Waiter>();
  /** Stopping ends every request still waiting (a stopping controller does not wait out its resends). */
  private readonly stopping = new AbortController();

  constructor(options: RearNodeOptions) {
    this.o = options;
  }

  private get self(): string { return this.o.topology.self; }
  private now(): number { return (this.o.clock ?? Date.now)(); }

  async start(): Promise<void> {
    await this.o.bus.subscribe(agentFilters(this.self), (m) => { void this.receive(m); });
  }

  /** Ends the requests still waiting for an answer (they throw unavailable); a request sent again after a restart is known to the seller by its id. */
  stop(): void {
    this.stopping.abort();
  }

  /** The peering candidates this cluster holds (a supernode's cache). */
  candidates(): CandidateCache { return this.cache; }

  private send(to: string, body: Body): Promise<RearMessage> {
    return this.o.bus.publish(directTopic(this.self, to, body.kind), body);
  }

  private async receive(m: RearMessage): Promise<void> {
    try {
      if (m.kind === 'rear-list-flavours') await this.onList(m);
      else if (m.kind === 'rear-flavours') this.waiting.get(`${m.requestId}/${m.sender}`)?.(m);
      else if (m.kind === 'rear-sale') await this.onSaleAnswer(m);
      else if (m.kind === 'rear-contract-ended') await this.onContractEnded(m);
      else if (m.kind === 'rear-flavour-gone') await this.onFlavourGone(m);
      else if (m.kind === 'rear-reserve' || m.kind === 'rear-purchase' || m.kind === 'rear-countersign') await this.onSale(m);
      // rear-pod and rear-pod-status are the peering's (peering/)
    } catch (err) {
      this.o.logger?.warn({ kind: m.kind, sender: m.sender, err: errorMessage(err) }, 'REAR message not handled');
    }
  }

  // SUPERNODE_DISCOVERY and MEMBER_DISCOVERY
  private async onList(m: ListFlavoursMessage): Promise<void> {
    const own = this.o.market?.flavours(m.selector) ?? [];
    const reply = (source: FlavoursAnswerMessage['source'], flavours: Flavour[]): Promise<RearMessage> =>
      this.send(m.sender, { kind: 'rear-flavours', to: m.sender, requestId: m.requestId, path: m.path, source, flavours });
    if (!isSupernode(this.o.topology)) { await reply('own', own); return; }
    const answer = supernodeAnswer({ own, cache: this.cache, known: whomToAsk(this.o.topology, m.path) }, { selector: m.selector, path: m.path }, this.now());
    if (answer.source !== 'ask') { await reply(answer.source, answer.flavours); return; }
    const asked = await Promise.all(answer.ask.map((target) => this.ask(target, m)));
    for (const a of asked) if (a.length > 0) this.cache = remember(this.cache, { flavours: a, via: a[0]?.owner.cluster ?? '' }, this.now(), this.o.cacheTtlMs ?? 60_000);
    await reply('asked', mergeAnswers(asked));
  }

  /** Asks one cluster for flavours; nothing when it does not answer in time. */
  private ask(target: string, m: ListFlavoursMessage): Promise<Flavour[]> {
    const requestId = `${m.requestId}.${this.self}`;
    return new Promise((resolve) => {
      const key = `${requestId}/${target}`;
      const timer = setTimeout(() => { this.waiting.delete(key); resolve([]); }, this.o.replyTimeoutMs ?? 2_000);
      this.waiting.set(key, (a) => { clearTimeout(timer); this.waiting.delete(key); resolve(a.kind === 'rear-flavours' ? a.flavours : []); });
      this.send(target, { kind: 'rear-list-flavours', to: target, requestId, selector: m.selector, path: [...m.path, this.self] }).catch(() => undefined);
    });
  }

  // SALE_HOP
  private async onSale(m: ReserveFlavourMessage | PurchaseFlavourMessage | CountersignContractMessage): Promise<void> {
    const refuse = (err: unknown): Promise<RearMessage> => {
      const kind = isEdgeshifuError(err) && ['invalid', 'not-found', 'conflict', 'forbidden'].includes(err.kind) ? err.kind as 'invalid' : 'unavailable';
      return this.send(m.sender, { kind: 'rear-sale', to: m.sender, requestId: m.requestId, path: m.path, refusal: { kind, message: errorMessage(err).slice(0, 1024) } });
    };
    if (m.path[0] !== m.buyer || m.path.at(-1) !== m.sender) { await refuse(new EdgeshifuError('forbidden', 'the path must name the buyer first and the sender last')); return; }
    let hop: string;
    try { hop = nextHop(this.o.topology, m.seller, m.sellerDomain); } catch (err) { await refuse(err); return; }
    if (hop !== 'self') {
      // a reservation takes the flavour's id off sale (the rest is listed under a new one), so a
      // supernode's cached copy would send the next buyer to a flavour that is gone
      if (m.kind === 'rear-reserve') this.cache = forget(this.cache, m.flavourId);
      await this.send(hop, { ...strip(m), to: hop, path: [...m.path, this.self] } as Body);
      return;
    }
    try {
      const market = this.o.market;
      if (market === undefined) throw new EdgeshifuError('not-found', `${this.self} sells nothing`);
      const base = { kind: 'rear-sale' as const, to: m.sender, requestId: m.requestId, path: m.path };
      if (m.kind === 'rear-reserve') {
        const t = await market.reserve({ flavourId: m.flavourId, buyer: m.buyer, requestId: m.requestId, take: takeOf(m) });
        await this.send(m.sender, { ...base, transaction: wireTransaction(t) });
      } else if (m.kind === 'rear-countersign') {
        const signed = await market.countersign(m.contractId, m.buyer, m.buyerSignature);
        await this.send(m.sender, { ...base, contract: signed.contract, sellerSignature: signed.signatures.seller });
      } else {
        const signed = await market.purchase({ transactionId: m.transactionId, flavourId: m.flavourId, buyer: m.buyer, ...(m.durationMs === undefined ? {} : { durationMs: m.durationMs }) });
        this.o.sold?.(signed.contract.contractId, m.path);
        await this.send(m.sender, { ...base, contract: signed.contract, sellerSignature: signed.signatures.seller });
      }
    } catch (err) {
      await refuse(err);
    }
  }

  // SALE_ANSWER_HOP
  private async onSaleAnswer(m: SaleAnswerMessage): Promise<void> {
    const { to, path } = answerHop(this.self, m.path);
    if (to !== undefined) { await this.send(to, { ...strip(m), to, path } as Body); return; }
    this.waiting.get(`${m.requestId}/sale`)?.(m);
  }

  // CONTRACT_ENDED_HOP: back along the purchase's path; the buyer acts on it
  private async onContractEnded(m: ContractEndedMessage): Promise<void> {
    const { to, path } = answerHop(this.self, m.path);
    if (to !== undefined) { await this.send(to, { ...strip(m), to, path } as Body); return; }
    if (m.buyer === this.self) await this.o.ended?.(m);
  }

  // SUPERNODE_FLAVOUR_GONE
  private async onFlavourGone(m: FlavourGoneMessage): Promise<void> {
    if (!isSupernode(this.o.topology) || m.path[0] !== m.seller || m.path.at(-1) !== m.sender) return;
    if (!this.firstNotice(`${m.seller}/${m.noticeId}`)) return;
    this.cache = forgetGone(this.cache, m.seller, m.flavourIds);
    const path = [...m.path, this.self];
    await Promise.all(goneTargets(this.o.topology, m.path).map((to) => this.send(to, { ...strip(m), to, path } as Body)));
  }

  private firstNotice(key: string): boolean {
    const { seen, first } = firstSight(this.notices, key, this.now(), this.o.cacheTtlMs ?? 60_000);
    this.notices = seen;
    return first;
  }

  /** SELLER_FLAVOUR_GONE: these of this cluster's flavour ids left sale; the supernodes forget them. */
  async tellGone(flavourIds: readonly string[]): Promise<void> {
    this.cache = forgetGone(this.cache, this.self, flavourIds);
    const to = goneTargets(this.o.topology, [this.self]);
    for (let i = 0; i < flavourIds.length; i += GONE_IDS_MAX) {
      const body = { kind: 'rear-flavour-gone' as const, noticeId: this.newRequestId(), seller: this.self, flavourIds: flavourIds.slice(i, i + GONE_IDS_MAX), path: [this.self] };
      this.firstNotice(`${this.self}/${body.noticeId}`);
      await Promise.all(to.map((target) => this.send(target, { ...body, to: target })));
    }
  }

  /** The seller tells a buyer (by the path its purchase came) that a contract ended before its time. */
  async tellEnded(contract: { contractId: string; buyer: string }, path: readonly string[], reason: ContractEndedMessage['reason'], message: string): Promise<void> {
    const to = path.at(-1);
    if (to === undefined) return;
    await this.send(to, { kind: 'rear-contract-ended', to, path: [...path], seller: this.self, buyer: contract.buyer, contractId: contract.contractId, reason, message });
  }

  // BUYER_REQUEST
  /** Resent after each timeout, twice as long each time; never waits past `deadline` (a time) when given. */
  private async request<A extends SaleAnswerMessage | FlavoursAnswerMessage>(key: (requestId: string) => string, body: (requestId: string) => Body, deadline?: { at: number; error: () => EdgeshifuError }, requestId = this.newRequestId()): Promise<A> {
    const attempts = this.o.attempts ?? 5;
    const stopped = (): EdgeshifuError => new EdgeshifuError('unavailable', `${this.self} is stopping; request ${requestId} not answered`);
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (this.stopping.signal.aborted) throw stopped();
      const wait = Math.min((this.o.replyTimeoutMs ?? 2_000) * 2 ** attempt, deadline === undefined ? Number.POSITIVE_INFINITY : Math.max(0, deadline.at - this.now()));
      const answer = await new Promise<A | 'stopped' | undefined>((resolve) => {
        const done = (a: A | 'stopped' | undefined): void => { clearTimeout(timer); this.stopping.signal.removeEventListener('abort', abort); this.waiting.delete(key(requestId)); resolve(a); };
        const abort = (): void => { done('stopped'); };
        const timer = setTimeout(() => { done(undefined); }, wait);
        this.stopping.signal.addEventListener('abort', abort);
        this.waiting.set(key(requestId), (a) => { done(a as A); });
        this.send(this.o.topology.supernode, body(requestId)).catch(() => undefined);
      });
      if (answer === 'stopped') throw stopped();
      if (answer !== undefined) return answer;
      if (deadline !== undefined && this.now() >= deadline.at) throw deadline.error();
    }
    throw new EdgeshifuError('unavailable', `no answer from supernode ${this.o.topology.supernode} after ${attempts} tries`);
  }

  /** A fresh request id (the seller knows a request by its buyer and this id). */
  newRequestId(): string {
    return `${this.self}.${randomUUID()}`;
  }

  /** LIST_FLAVOURS through this cluster's supernode. */
  async discover(selector: Selector): Promise<Flavour[]> {
    const sn = this.o.topology.supernode;
    const answer = await this.request<FlavoursAnswerMessage>((id) => `${id}/${sn}`, (requestId) => ({ kind: 'rear-list-flavours', to: sn, requestId, selector, path: [this.self] }));
    return answer.flavours;
  }

  /**
   * RESERVE_FLAVOUR through the supernodes; a refusal is thrown with its kind. With `requestId`
   * (one already sent, e.g. before a restart) the seller answers with the transaction it made for it.
   */
  async reserve(flavour: Flavour, take: Take = {}, requestId = this.newRequestId()): Promise<SaleAnswerMessage['transaction'] & object> {
    const sn = this.o.topology.supernode;
    const answer = await this.request<SaleAnswerMessage>((id) => `${id}/sale`, (requestId) => ({
      kind: 'rear-reserve', to: sn, requestId, path: [this.self], seller: flavour.owner.cluster, sellerDomain: flavour.owner.domain, flavourId: flavour.id, buyer: this.self,
      ...(take.partition === undefined ? {} : { partition: take.partition }), ...(take.units === undefined ? {} : { units: take.units }),
    }), undefined, requestId);
    if (answer.transaction === undefined) throw refusalError(answer);
    return answer.transaction;
  }

  /**
   * PURCHASE_FLAVOUR through the supernodes: the seller's signature checked, the contract
   * countersigned. With the transaction's `expiresAt`, the buyer stops waiting one reply timeout
   * after it (a late answer still counts within it): the seller sells nothing past its expiry.
   */
  async purchase(flavour: PurchaseTarget, transactionId: string, durationMs?: number, expiresAt?: number): Promise<SignedContract> {
    const sn = this.o.topology.supernode;
    const deadline = expiresAt === undefined ? undefined : {
      at: expiresAt + (this.o.replyTimeoutMs ?? 2_000),
      error: () => new EdgeshifuError('not-found', `transaction ${transactionId} expired at ${new Date(expiresAt).toISOString()} before ${flavour.owner.cluster} answered its purchase: reserve the flavour again`),
    };
    const answer = await this.request<SaleAnswerMessage>((id) => `${id}/sale`, (requestId) => ({
      kind: 'rear-purchase', to: sn, requestId, path: [this.self], seller: flavour.owner.cluster, sellerDomain: flavour.owner.domain, transactionId, flavourId: flavour.id, buyer: this.self,
      ...(durationMs === undefined ? {} : { durationMs }),
    }), deadline);
    if (answer.contract === undefined || answer.sellerSignature === undefined) throw refusalError(answer);
    return buyerCountersigns(this.o.keyring, { contract: answer.contract, signatures: { seller: answer.sellerSignature } }, this.self);
  }

  /** Carries the buyer's countersignature back to the seller, which verifies both and keeps it. */
  async countersign(signed: SignedContract): Promise<void> {
    const { contract, signatures } = signed;
    if (signatures.buyer === undefined) throw new EdgeshifuError('invalid', `contract ${contract.contractId} is not countersigned`);
    const buyerSignature = signatures.buyer;
    const sn = this.o.topology.supernode;
    const answer = await this.request<SaleAnswerMessage>((id) => `${id}/sale`, (requestId) => ({
      kind: 'rear-countersign', to: sn, requestId, path: [this.self], seller: contract.seller.cluster, sellerDomain: contract.seller.domain, buyer: this.self, contractId: contract.contractId, buyerSignature,
    }));
    if (answer.contract === undefined) throw refusalError(answer);
  }
}
