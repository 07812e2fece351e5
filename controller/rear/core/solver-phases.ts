// Where an intent stands (pure): each event of the REAR workflow moves the Solver's phase, and the
// reason names the step that blocks it, so `kubectl get solvers` says what is being waited on.
// A refused reservation (the flavour went to another buyer), or one that expired before its
// purchase was answered, sends the Solver back to discovery, at most `maxAttempts` times (until its
// deadline instead, when it has one); then it fails with the last refusal. One that waiting cannot
// change fails it at once (core/refusals.ts). A discovery that finds nothing
// leaves it Pending (NoFlavourFound) until its next attempt (core/discovery-retry.ts), and Failed
// (DeadlineExceeded) once its own deadline has passed. A contract that reaches its time ends the
// Solver `Ended` (ContractExpired), a normal end; one withdrawn or deleted before it is `Failed`.

export const SOLVER_PHASES = ['Pending', 'Discovering', 'Reserving', 'Purchasing', 'Peering', 'Solved', 'Ended', 'Failed'] as const;
export type SolverPhase = typeof SOLVER_PHASES[number];

export interface SolverState {
  readonly phase: SolverPhase;
  /** CamelCase, names the blocking step (Kubernetes condition reason). */
  readonly reason: string;
  readonly message: string;
  readonly attempts: number;
  readonly flavourId?: string;
  readonly provider?: string;
  readonly transactionId?: string;
  readonly contractId?: string;
  /** Discoveries in a row that found nothing. */
  readonly discoveries?: number;
  /** When the next discovery is due (ISO time), while Pending after an empty one. */
  readonly retryAt?: string;
  readonly virtualNode?: string;
}

export type SolverEvent =
  | { readonly type: 'local'; readonly message: string }
  | { readonly type: 'discover'; readonly message: string }
  | { readonly type: 'discovered'; readonly count: number }
  | { readonly type: 'not-found'; readonly retryAt: number; readonly failures: number }
  | { readonly type: 'deadline'; readonly failures: number }
  | { readonly type: 'discovery-failed'; readonly message: string }
  | { readonly type: 'reserve'; readonly flavourId: string; readonly provider: string }
  | { readonly type: 'reserved'; readonly transactionId: string }
  /**
   * `expiry`: the reservation expired before its purchase was answered. `retryAt`: the Solver has a
   * deadline, so it waits (Pending) until then and tries again, its attempts not counted against it.
   */
  | { readonly type: 'refused'; readonly step: 'reserve' | 'purchase' | 'expiry'; readonly message: string; readonly retryAt?: number }
  /** What waiting cannot change (core/refusals.ts), or the deadline passed while refused: Failed, the reason naming the step. */
  | { readonly type: 'blocked'; readonly reason: string; readonly message: string }
  | { readonly type: 'purchased'; readonly contractId: string }
  | { readonly type: 'peered'; readonly virtualNode?: string }
  /** The seller withdrew the contract (or it was deleted) before its time. */
  | { readonly type: 'contract-ended'; readonly message: string }
  /** The contract reached its expiry: the capacity was had for the period bought. */
  | { readonly type: 'contract-expired'; readonly message: string };

export const INITIAL: SolverState = { phase: 'Pending', reason: 'Deciding', message: 'checking local capacity, then peering candidates', attempts: 0 };

/** The state without a pending retry time. */
function settled(state: SolverState): SolverState {
  const next: { -readonly [K in keyof SolverState]: SolverState[K] } = { ...state };
  delete next.retryAt;
  return next;
}

function tries(n: number): string {
  return n === 1 ? '1 attempt' : `${n} attempts`;
}

const TERMINAL = new Set<SolverPhase>(['Solved', 'Ended', 'Failed']);
const CONTRACT_EVENTS = new Set<SolverEvent['type']>(['refused', 'blocked', 'purchased', 'peered', 'contract-ended', 'contract-expired']);

/** A Solved Solver still holds its contract: only the contract's end moves it. Ended and Failed are final. */
function final(state: SolverState, event: SolverEvent): boolean {
  if (state.phase === 'Solved') return event.type !== 'contract-ended' && event.type !== 'contract-expired';
  return TERMINAL.has(state.phase);
}

export function nextSolver(state: SolverState, event: SolverEvent, maxAttempts: number): SolverState {
  if (final(state, event)) return state;
  return CONTRACT_EVENTS.has(event.type)
    ? contractStep(state, event as Exclude<SolverEvent, DiscoveryEvent>, maxAttempts)
    : discoveryStep(state, event as DiscoveryEvent);
}

type DiscoveryEvent = Exclude<SolverEvent, { type: 'refused' | 'blocked' | 'purchased' | 'peered' | 'contract-ended' | 'contract-expired' }>;

function discoveryStep(state: SolverState, event: DiscoveryEvent): SolverState {
  switch (event.type) {
    case 'local':
      return { ...state, phase: 'Solved', reason: 'LocalCapacity', message: event.message };
    case 'discover':
      return { ...settled(state), phase: 'Discovering', reason: 'WaitingForDiscovery', message: event.message };
    case 'discovered':
      return event.count > 0
        ? { ...state, reason: 'CandidatesFound', message: `${event.count} peering candidates found`, discoveries: 0 }
        : { ...state, phase: 'Failed', reason: 'NoFlavourFound', message: 'discovery found no flavour matching the intent' };
    case 'not-found': {
      const at = new Date(event.retryAt).toISOString();
      return { ...state, phase: 'Pending', reason: 'NoFlavourFound', message: `discovery found no flavour matching the intent (${tries(event.failures)}); next attempt at ${at}`, discoveries: event.failures, retryAt: at };
    }
    case 'deadline': {
      return { ...settled(state), phase: 'Failed', reason: 'DeadlineExceeded', message: `discovery found no flavour matching the intent (${tries(event.failures)}) before the Solver's deadline (spec.activeDeadlineSeconds)`, discoveries: event.failures };
    }
    case 'discovery-failed':
      return { ...state, phase: 'Failed', reason: 'DiscoveryFailed', message: event.message };
    case 'reserve':
      return { ...state, phase: 'Reserving', reason: 'WaitingForReservation', message: `reserving flavour ${event.flavourId} from ${event.provider}`, flavourId: event.flavourId, provider: event.provider, attempts: state.attempts + 1 };
    case 'reserved':
      return { ...state, phase: 'Purchasing', reason: 'WaitingForPurchase', message: `purchasing transaction ${event.transactionId}`, transactionId: event.transactionId };
  }
}

function contractStep(state: SolverState, event: Exclude<SolverEvent, DiscoveryEvent>, maxAttempts: number): SolverState {
  switch (event.type) {
    case 'refused': {
      const reason = { reserve: 'ReservationRefused', purchase: 'PurchaseRefused', expiry: 'ReservationExpired' }[event.step];
      if (event.retryAt !== undefined) {
        const at = new Date(event.retryAt).toISOString();
        return { phase: 'Pending', reason, message: `${event.message} (${tries(state.attempts)}); next attempt at ${at}`, attempts: state.attempts, retryAt: at };
      }
      if (state.attempts >= maxAttempts) return { ...state, phase: 'Failed', reason, message: `${event.message} (after ${state.attempts} attempts)` };
      return { phase: 'Discovering', reason, message: event.message, attempts: state.attempts };
    }
    case 'blocked':
      return { ...settled(state), phase: 'Failed', reason: event.reason, message: event.message };
    case 'purchased':
      return { ...state, phase: 'Peering', reason: 'WaitingForVirtualNode', message: `contract ${event.contractId} signed; waiting for its virtual node to be Ready`, contractId: event.contractId };
    case 'peered':
      if (state.phase !== 'Peering') return state;
      return { ...state, phase: 'Solved', reason: 'VirtualNodeReady', message: `contract ${state.contractId ?? ''} peered: ${event.virtualNode === undefined ? 'its virtual node' : `virtual node ${event.virtualNode}`} is Ready`, ...(event.virtualNode === undefined ? {} : { virtualNode: event.virtualNode }) };
    case 'contract-ended':
      return state.contractId === undefined ? state : { ...state, phase: 'Failed', reason: 'ContractEnded', message: event.message };
    case 'contract-expired':
      return state.contractId === undefined ? state : { ...state, phase: 'Ended', reason: 'ContractExpired', message: event.message };
  }
}

/** What a contract copy's end means for its Solver (the Allocation was Released): the period over, or ended early. */
export function contractEnd(contract: { readonly contractId: string; readonly seller: string; readonly expiresAt: string; readonly phase?: string; readonly deleting?: boolean }, now: number): SolverEvent {
  const { contractId, expiresAt } = contract;
  if (contract.phase === 'Withdrawn') return { type: 'contract-ended', message: `contract ${contractId} was withdrawn by ${contract.seller} before ${expiresAt}` };
  if (contract.phase === 'Ended' || new Date(expiresAt).getTime() <= now) return { type: 'contract-expired', message: `contract ${contractId} reached its end at ${expiresAt}; its virtual node is removed` };
  return { type: 'contract-ended', message: `contract ${contractId} ${contract.deleting === true ? 'was deleted' : 'ended'} before ${expiresAt}` };
}
