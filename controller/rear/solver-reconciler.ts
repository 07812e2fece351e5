// The consumer's Solver reconciler: informer → queue → reconcile(key) → the pure decision
// (core/solver.ts) and phase (core/solver-phases.ts) → one REAR step over the bus (rear-node.ts)
// → the status, written after every step so `kubectl get solvers` shows where each intent stands.
// What it wrote is remembered per Solver: a cache that lags behind its own writes never makes it
// reserve or buy twice. Its peering candidates and reservations are resources too (buyer-store.ts):
// a restarted controller consults the same candidates and waits for a held purchase only until
// one reply timeout past the transaction's expiry, as before the restart.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import type { Informer } from '../../shared/kube/informer.ts';
import { EdgeshifuError, isEdgeshifuError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import type { Registry } from '../../shared/prometheus.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import { Runner, type ReconcileResult } from '../runner.ts';
import { DISCOVERY_RETRY, nextDiscovery, solverDeadline, waitForRetry, type DiscoveryRetryPolicy } from './core/discovery-retry.ts';
import { forget, prune, remember, type CandidateCache } from './core/discovery.ts';
import type { Flavour, RearResources } from './core/model.ts';
import { nextSolver, type SolverEvent, type SolverState } from './core/solver-phases.ts';
import { intentOf, solverStatus, stateOf, type SolverSpecIn, type SolverStatusOut } from './core/solver-status.ts';
import { decide, underCeiling, type Intent } from './core/solver.ts';
import { aboveCeiling, finalRefusal, nextAfterRefusal, REFUSAL_RETRY, refusalClassOf } from './core/refusals.ts';
import { SellerRefusal } from './sale-wire.ts';
import type { RearNode } from './rear-node.ts';
import type { SignedContract } from './contract-signing.ts';
import { fromQuantities } from './quantities.ts';
import type { BuyerStore, ReservationRef } from './buyer-store.ts';

/** The Solver as stored: quantities and a decimal price, as users write them. */
export interface SolverSpecStored extends Omit<SolverSpecIn, 'resources' | 'maxPrice'> {
  readonly resources: Partial<Record<keyof RearResources, string | number>>;
  readonly maxPrice?: { readonly amount: string; readonly currency: string; readonly period: 'hourly' | 'daily' | 'monthly' };
}

export interface Solver extends KubernetesObject {
  spec: SolverSpecStored;
  status?: Partial<SolverStatusOut>;
}

export interface SolverReconcilerDeps {
  readonly client: KubeClient;
  readonly solvers: Informer<Solver>;
  readonly node: RearNode;
  /** What this cluster has free for its own work, in REAR's units. */
  readonly localFree: () => RearResources;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly maxAttempts?: number;
  readonly candidateTtlMs?: number;
  /** When a discovery that found nothing is tried again (core/discovery-retry.ts). */
  readonly discoveryRetry?: DiscoveryRetryPolicy;
  readonly clock?: () => number;
  /** The candidates and reservations kept as resources (without it, in memory only). */
  readonly store?: BuyerStore;
  /** The buyer's records of a contract just bought (its Contract copy, Allocation, countersignature). */
  readonly bought?: (namespace: string, solver: string, signed: SignedContract) => Promise<void>;
}

interface Written { state: SolverState; domain?: string }

/** What a Solver's stored status says (after a restart). */
function writtenOf(solver: Solver): Written {
  const domain = solver.status?.providerDomain;
  return { state: stateOf(solver.status), ...(domain === undefined ? {} : { domain }) };
}

/** The intent in REAR's units (quantities parsed, the price a number). */
function intentOfSolver(solver: Solver): Intent {
  const { maxPrice, ...spec } = solver.spec;
  return intentOf({ ...spec, resources: fromQuantities(spec.resources, 'spec.resources'), ...(maxPrice === undefined ? {} : { maxPrice: { ...maxPrice, amount: Number(maxPrice.amount) } }) });
}

/** Which Reservation records the Solver's current attempt. */
function reservationOf(solver: Solver, state: SolverState): ReservationRef {
  const { namespace = '', name = '', uid } = solver.metadata ?? {};
  return { namespace, solver: name, ...(uid === undefined ? {} : { uid }), attempt: state.attempts };
}

/** The Solver's own deadline for finding a flavour, if it has one. */
function deadlineOf(solver: Solver): number | undefined {
  const created = solver.metadata?.creationTimestamp as unknown;
  return solverDeadline(typeof created === 'string' ? created : undefined, solver.spec.activeDeadlineSeconds);
}

export class SolverReconciler {
  readonly runner: Runner;
  private readonly deps: SolverReconcilerDeps;
  private candidates: CandidateCache = new Map();
  private readonly written = new Map<string, Written>();
  /** When each transaction this buyer holds expires on its seller (from the RESERVE's answer). */
  private readonly expiries = new Map<string, number>();
  /** The request id of each attempt's RESERVE (by Reservation), while unanswered: a try again sends the same one. */
  private readonly requests = new Map<string, string>();

  constructor(deps: SolverReconcilerDeps) {
    this.deps = deps;
    this.runner = new Runner({ name: 'rear-solver', workers: 2, logger: deps.logger, registry: deps.registry, reconcile: (key) => this.reconcile(key) });
    for (const event of ['add', 'update'] as const) deps.solvers.on(event, (_s, key) => { this.runner.queue.add(key); });
    deps.solvers.on('delete', (_s, key) => { this.written.delete(key); });
  }

  /** Starts with the candidates the store still holds (a restart consults them before discovering). */
  async start(): Promise<void> {
    if (this.deps.store !== undefined) this.candidates = await this.deps.store.loadCandidates();
    this.runner.start();
  }
  stop(): Promise<void> { return this.runner.stop(); }
  private now(): number { return (this.deps.clock ?? Date.now)(); }

  /** The cache changed: kept as PeeringCandidates before the step that follows. */
  private async candidatesNow(next: CandidateCache): Promise<void> {
    this.candidates = next;
    await this.deps.store?.keepCandidates(next);
  }

  /** When a held transaction expires: from this run's answer, else from its Reservation (after a restart). */
  private async expiryOf(ref: ReservationRef, transactionId: string): Promise<number | undefined> {
    return this.expiries.get(transactionId) ?? await this.deps.store?.expiry(ref, transactionId);
  }

  /** Writes the status (a merge patch: a retry time no longer due is cleared with null). */
  private async save(solver: Solver, key: string, written: Written): Promise<void> {
    this.written.set(key, written);
    const { namespace = '', name = '' } = solver.metadata ?? {};
    const status = solverStatus(written.state, { ...(written.domain === undefined ? {} : { providerDomain: written.domain }), ...(solver.metadata?.generation === undefined ? {} : { generation: solver.metadata.generation }), now: new Date(this.now()).toISOString(), previous: solver.status?.conditions?.[0] });
    await this.deps.client.request('PATCH', `/apis/${API_VERSION}/namespaces/${namespace}/solvers/${name}/status`, { body: { status: { ...status, nextAttemptTime: status.nextAttemptTime ?? null } }, contentType: 'application/merge-patch+json' });
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const [namespace, name] = key.split('/');
    const solver = this.deps.solvers.get(name ?? '', namespace);
    if (solver === undefined) return {};
    let at: Written = this.written.get(key) ?? writtenOf(solver);
    const intent = intentOfSolver(solver);
    const step = async (event: SolverEvent, domain = at.domain): Promise<void> => {
      at = { state: nextSolver(at.state, event, this.deps.maxAttempts ?? 3), ...(domain === undefined ? {} : { domain }) };
      await this.save(solver, key, at);
    };
    // nothing found last time: wait for the next attempt, as a Pending pod waits for room
    const wait = at.state.phase === 'Pending' ? waitForRetry(at.state.retryAt, this.now()) : 0;
    if (wait > 0) return { requeueAfterMs: wait };
    try {
      const again = at.state.phase === 'Pending' || at.state.phase === 'Discovering' ? await this.acquire(intent, step, (at.state.discoveries ?? 0) + 1, deadlineOf(solver)) : undefined;
      if (again !== undefined) return again;
      if (at.state.phase === 'Reserving' || at.state.phase === 'Purchasing') await this.buy(solver, intent, at, step);
    } catch (err) {
      return this.refused(err, solver, () => at.state, step);
    }
    return {};
  }

  /**
   * A refusal from the seller (core/refusals.ts): the flavour forgotten, the Solver back to
   * discovery (after a delay, up to its deadline, when it has one), or Failed when waiting changes
   * nothing. No answer is tried again with the same request, until the deadline.
   */
  private async refused(err: unknown, solver: Solver, current: () => SolverState, step: (e: SolverEvent) => Promise<void>): Promise<ReconcileResult> {
    if (!isEdgeshifuError(err)) throw err;
    const state = current();
    const deadline = deadlineOf(solver);
    const kind = refusalClassOf(err, (state.phase === 'Reserving' || state.phase === 'Purchasing') && err instanceof SellerRefusal);
    if (kind === 'no-answer') {
      if (deadline === undefined || this.now() < deadline) throw err;
      await step({ type: 'blocked', reason: 'DeadlineExceeded', message: `${err.message}: no answer before the Solver's deadline (spec.activeDeadlineSeconds)` });
      return {};
    }
    const ref = reservationOf(solver, state);
    if (state.flavourId !== undefined) await this.candidatesNow(forget(this.candidates, state.flavourId));
    if (state.transactionId !== undefined && kind === 'final') this.expiries.delete(state.transactionId);
    if (kind === 'final') {
      await this.deps.store?.settled(ref, 'Refused', err.message, state.flavourId);
      await step({ type: 'blocked', ...finalRefusal(state.phase === 'Purchasing' ? 'purchase' : 'reserve', err.kind as 'forbidden' | 'invalid', state.provider ?? 'the provider', err.message) });
      return {};
    }
    return this.again(err, ref, state, { deadline, current, step });
  }

  /** A refusal waiting may change: back to discovery, after a delay and up to the deadline when the Solver has one. */
  private async again(err: EdgeshifuError, ref: ReservationRef, state: SolverState, on: { deadline: number | undefined; current: () => SolverState; step: (e: SolverEvent) => Promise<void> }): Promise<ReconcileResult> {
    const expiresAt = state.transactionId === undefined ? undefined : await this.expiryOf(ref, state.transactionId);
    if (state.transactionId !== undefined) this.expiries.delete(state.transactionId);
    // a not-found past the transaction's expiry is the reservation lapsing, not a refusal
    const expired = err.kind === 'not-found' && expiresAt !== undefined && this.now() >= expiresAt;
    if (state.phase === 'Reserving' || state.phase === 'Purchasing') await this.deps.store?.settled(ref, expired ? 'Expired' : 'Refused', err.message, state.flavourId);
    const now = this.now();
    const retryAt = nextAfterRefusal(REFUSAL_RETRY, state.attempts, now, on.deadline);
    if (retryAt === 'deadline') {
      await on.step({ type: 'blocked', reason: 'DeadlineExceeded', message: `${err.message} (after ${state.attempts} attempts); the Solver's deadline (spec.activeDeadlineSeconds) has passed` });
      return {};
    }
    await on.step({ type: 'refused', step: state.phase !== 'Purchasing' ? 'reserve' : expired ? 'expiry' : 'purchase', message: err.message, ...(retryAt === undefined ? {} : { retryAt }) });
    return on.current().phase === 'Failed' ? {} : { requeueAfterMs: retryAt === undefined ? 100 : Math.max(1, retryAt - now) };
  }

  /** The seller ended the Solver's contract before its time: Failed, reason ContractEnded. */
  async contractEnded(namespace: string, name: string, message: string): Promise<void> {
    await this.told(namespace, name, { type: 'contract-ended', message });
  }

  /** The contract's Allocation was Released: `Ended` when its period ran out, `Failed` when it ended early (`contractEnd`). */
  async contractOver(namespace: string, name: string, contractId: string, event: SolverEvent): Promise<void> {
    await this.told(namespace, name, event, contractId);
  }

  /** The contract's Allocation turned Active (its virtual node is Ready): Solved. */
  async peered(namespace: string, name: string, contractId: string, virtualNode: string): Promise<void> {
    await this.told(namespace, name, { type: 'peered', virtualNode }, contractId);
  }

  /** An event from outside the reconcile loop, written at once (about `contractId` when given). */
  private async told(namespace: string, name: string, event: SolverEvent, contractId?: string): Promise<void> {
    const key = `${namespace}/${name}`;
    const solver = this.deps.solvers.get(name, namespace);
    if (solver === undefined) return;
    const at = this.written.get(key) ?? writtenOf(solver);
    if (contractId !== undefined && at.state.contractId !== contractId) return;
    const state = nextSolver(at.state, event, this.deps.maxAttempts ?? 3);
    if (state !== at.state) await this.save(solver, key, { ...at, state });
  }

  /**
   * Local capacity, then the known candidates, then discovery; ends Solved or Reserving, or
   * Pending until the next discovery (returned) when this one found nothing.
   */
  private async acquire(intent: Intent, step: (e: SolverEvent, domain?: string) => Promise<void>, failures: number, deadline: number | undefined): Promise<ReconcileResult | undefined> {
    const pick = (): ReturnType<typeof decide> => decide(intent, this.deps.localFree(), [...prune(this.candidates, this.now()).values()], this.now());
    let decision = pick();
    if (decision.step === 'discover') {
      await step({ type: 'discover', message: decision.reason });
      const found = await this.deps.node.discover(decision.selector);
      await this.candidatesNow(remember(this.candidates, { flavours: found, via: 'discovery' }, this.now(), this.deps.candidateTtlMs ?? 60_000));
      decision = pick();
      if (decision.step === 'discover') {
        const now = this.now();
        const retry = nextDiscovery(this.deps.discoveryRetry ?? DISCOVERY_RETRY, failures, now, deadline);
        if (retry.kind === 'deadline') { await step({ type: 'deadline', failures }); return {}; }
        await step({ type: 'not-found', retryAt: retry.at, failures });
        return { requeueAfterMs: Math.max(1, retry.at - now) };
      }
      await step({ type: 'discovered', count: found.length });
    }
    if (decision.step === 'local') { await step({ type: 'local', message: decision.reason }); return undefined; }
    const owner = decision.candidate.flavour.owner;
    await step({ type: 'reserve', flavourId: decision.candidate.flavour.id, provider: owner.cluster }, owner.domain);
    return undefined;
  }

  /** RESERVE the flavour chosen, recorded in a Reservation before it leaves and with the seller's expiry after; returns the transaction. */
  private async reserve(ref: ReservationRef, intent: Intent, flavourId: string | undefined, step: (e: SolverEvent) => Promise<void>): Promise<string | undefined> {
    const flavour: Flavour | undefined = flavourId === undefined ? undefined : this.candidates.get(flavourId)?.flavour;
    if (flavour === undefined) throw new EdgeshifuError('not-found', `flavour ${flavourId ?? '?'} is no longer a known candidate`);
    const chosen = decide({ ...intent, remoteOnly: true }, this.deps.localFree(), [{ flavour, via: 'discovery', expiresAt: Number.MAX_SAFE_INTEGER }], this.now());
    const take = chosen.step === 'reserve' ? chosen.take : {};
    // one request id per attempt, recorded before the RESERVE leaves: a buyer that tries again,
    // or restarts before the answer, sends the same one and the seller never holds a second transaction
    const attempt = `${ref.namespace}/${ref.solver}/${String(ref.attempt)}/${flavour.id}`;
    const requestId = this.requests.get(attempt) ?? await this.deps.store?.pendingRequest(ref, flavour.id) ?? this.deps.node.newRequestId();
    this.requests.set(attempt, requestId);
    await this.deps.store?.reserving(ref, flavour, take, requestId);
    const transaction = await this.deps.node.reserve(flavour, take, requestId).catch((err: unknown) => {
      // refused: this attempt is over (a transient failure is tried again with the same id)
      if (!isEdgeshifuError(err) || !err.transient) this.requests.delete(attempt);
      throw err;
    });
    this.requests.delete(attempt);
    if (!underCeiling(intent, transaction.price) && intent.maxPrice !== undefined) {
      // asking again gets the same price: Failed, saying what to change (the transaction lapses at its expiry)
      const blocked = aboveCeiling(flavour.owner.cluster, transaction.price, intent.maxPrice);
      await this.deps.store?.settled(ref, 'Refused', blocked.message, flavour.id);
      await step({ type: 'blocked', ...blocked });
      return undefined;
    }
    const { transactionId, expiresAt } = transaction;
    this.expiries.set(transactionId, expiresAt);
    await this.deps.store?.reserved(ref, transactionId, expiresAt);
    await step({ type: 'reserved', transactionId });
    return transactionId;
  }

  /** RESERVE then PURCHASE with the flavour chosen; ends Peering with a contract. */
  private async buy(solver: Solver, intent: Intent, at: Written, step: (e: SolverEvent) => Promise<void>): Promise<void> {
    const { flavourId, provider } = at.state;
    const ref = reservationOf(solver, at.state);
    const bought = at.state.phase === 'Reserving' ? await this.reserve(ref, intent, flavourId, step) : at.state.transactionId ?? '';
    if (bought === undefined) return;
    // the seller and flavour are the Solver's own record: a restarted buyer purchases what it reserved, even once the candidate expired
    const seller = { id: flavourId ?? '', owner: { cluster: provider ?? '', domain: at.domain ?? '' } };
    const signed = await this.deps.node.purchase(seller, bought, intent.durationMs, await this.expiryOf(ref, bought));
    this.expiries.delete(bought);
    await this.deps.store?.settled(ref, 'Purchased', `contract ${signed.contract.contractId} bought`, flavourId);
    await step({ type: 'purchased', contractId: signed.contract.contractId });
    await this.deps.bought?.(solver.metadata?.namespace ?? '', solver.metadata?.name ?? '', signed);
  }
}
