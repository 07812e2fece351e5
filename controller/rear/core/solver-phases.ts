// Where an intent stands (pure): each event of the REAR workflow moves the Solver's phase, and the
// reason names the step that blocks it, so `kubectl get solvers` says what is being waited on.
// A refused reservation (the flavour went to another buyer) sends the Solver back to discovery,
// at most `maxAttempts` times; then it fails with the last refusal.

export const SOLVER_PHASES = ['Pending', 'Discovering', 'Reserving', 'Purchasing', 'Peering', 'Solved', 'Failed'] as const;
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
}

export type SolverEvent =
  | { readonly type: 'local'; readonly message: string }
  | { readonly type: 'discover'; readonly message: string }
  | { readonly type: 'discovered'; readonly count: number }
  | { readonly type: 'discovery-failed'; readonly message: string }
  | { readonly type: 'reserve'; readonly flavourId: string; readonly provider: string }
  | { readonly type: 'reserved'; readonly transactionId: string }
  | { readonly type: 'refused'; readonly step: 'reserve' | 'purchase'; readonly message: string }
  | { readonly type: 'purchased'; readonly contractId: string }
  | { readonly type: 'peered' }
  | { readonly type: 'contract-ended'; readonly message: string };

export const INITIAL: SolverState = { phase: 'Pending', reason: 'Deciding', message: 'checking local capacity, then peering candidates', attempts: 0 };

const TERMINAL = new Set<SolverPhase>(['Solved', 'Failed']);

export function nextSolver(state: SolverState, event: SolverEvent, maxAttempts: number): SolverState {
  if (TERMINAL.has(state.phase) && event.type !== 'contract-ended') return state;
  return event.type === 'refused' || event.type === 'purchased' || event.type === 'peered' || event.type === 'contract-ended'
    ? contractStep(state, event, maxAttempts)
    : discoveryStep(state, event);
}

type DiscoveryEvent = Exclude<SolverEvent, { type: 'refused' | 'purchased' | 'peered' | 'contract-ended' }>;

function discoveryStep(state: SolverState, event: DiscoveryEvent): SolverState {
  switch (event.type) {
    case 'local':
      return { ...state, phase: 'Solved', reason: 'LocalCapacity', message: event.message };
    case 'discover':
      return { ...state, phase: 'Discovering', reason: 'WaitingForDiscovery', message: event.message };
    case 'discovered':
      return event.count > 0
        ? { ...state, reason: 'CandidatesFound', message: `${event.count} peering candidates found` }
        : { ...state, phase: 'Failed', reason: 'NoFlavourFound', message: 'discovery found no flavour matching the intent' };
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
      const reason = event.step === 'reserve' ? 'ReservationRefused' : 'PurchaseRefused';
      if (state.attempts >= maxAttempts) return { ...state, phase: 'Failed', reason, message: `${event.message} (after ${state.attempts} attempts)` };
      return { phase: 'Discovering', reason, message: event.message, attempts: state.attempts };
    }
    case 'purchased':
      return { ...state, phase: 'Peering', reason: 'WaitingForVirtualNode', message: `contract ${event.contractId} signed; waiting for its virtual node to be Ready`, contractId: event.contractId };
    case 'peered':
      return state.phase === 'Peering' ? { ...state, phase: 'Solved', reason: 'VirtualNodeReady', message: `contract ${state.contractId ?? ''} peered: its virtual node is Ready` } : state;
    case 'contract-ended':
      return state.contractId === undefined ? state : { ...state, phase: 'Failed', reason: 'ContractEnded', message: event.message };
  }
}
