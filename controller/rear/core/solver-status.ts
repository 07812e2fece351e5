// The Solver's status from its state (pure): the phase, the reason naming the blocking step, and
// one Ready condition carrying the same reason, so `kubectl get solvers` and `kubectl wait` agree.
import type { SolverState } from './solver-phases.ts';
import type { RearResources } from './model.ts';
import type { Intent } from './solver.ts';

export interface SolverStatusOut {
  readonly observedGeneration?: number;
  readonly phase: SolverState['phase'];
  readonly reason: string;
  readonly message: string;
  readonly attempts: number;
  readonly flavorID?: string;
  readonly provider?: string;
  readonly providerDomain?: string;
  readonly transactionID?: string;
  readonly contractID?: string;
  readonly virtualNode?: string;
  readonly discoveryAttempts?: number;
  readonly nextAttemptTime?: string;
  readonly conditions: Array<{ type: string; status: 'True' | 'False'; reason: string; message: string; lastTransitionTime: string; observedGeneration?: number }>;
}

export interface SolverSpecIn {
  readonly resources: RearResources;
  readonly architecture?: string;
  readonly flavorType?: string;
  readonly durationSeconds: number;
  readonly maxPrice?: Intent['maxPrice'];
  readonly providers?: { readonly allowed?: readonly string[]; readonly denied?: readonly string[] };
  readonly remoteOnly?: boolean;
  readonly activeDeadlineSeconds?: number;
}

export function intentOf(spec: SolverSpecIn): Intent {
  return {
    resources: spec.resources, durationMs: spec.durationSeconds * 1000,
    ...(spec.architecture === undefined ? {} : { architecture: spec.architecture }),
    ...(spec.flavorType === undefined ? {} : { type: spec.flavorType }),
    ...(spec.maxPrice === undefined ? {} : { maxPrice: spec.maxPrice }),
    ...(spec.providers?.allowed === undefined ? {} : { allowedProviders: spec.providers.allowed }),
    ...(spec.providers?.denied === undefined ? {} : { deniedProviders: spec.providers.denied }),
    ...(spec.remoteOnly === undefined ? {} : { remoteOnly: spec.remoteOnly }),
  };
}

/** The status fields a state has (flavour, provider, transaction, contract, node, retries). */
function idsOf(state: SolverState, providerDomain: string | undefined): Partial<SolverStatusOut> {
  const fields = {
    flavorID: state.flavourId, provider: state.provider, providerDomain, transactionID: state.transactionId, contractID: state.contractId,
    virtualNode: state.virtualNode, discoveryAttempts: state.discoveries, nextAttemptTime: state.retryAt,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

export function solverStatus(state: SolverState, extra: { providerDomain?: string; generation?: number; now: string; previous?: SolverStatusOut['conditions'][number] }): SolverStatusOut {
  const ready = state.phase === 'Solved';
  const same = extra.previous !== undefined && extra.previous.status === (ready ? 'True' : 'False') && extra.previous.reason === state.reason;
  return {
    ...(extra.generation === undefined ? {} : { observedGeneration: extra.generation }),
    phase: state.phase, reason: state.reason, message: state.message, attempts: state.attempts,
    ...idsOf(state, extra.providerDomain),
    conditions: [{
      type: 'Ready', status: ready ? 'True' : 'False', reason: state.reason, message: state.message.slice(0, 32_768),
      lastTransitionTime: same ? (extra.previous?.lastTransitionTime ?? extra.now) : extra.now,
      ...(extra.generation === undefined ? {} : { observedGeneration: extra.generation }),
    }],
  };
}

/** The state kept in a status (a restart resumes from it). */
export function stateOf(status: Partial<SolverStatusOut> | undefined): SolverState {
  const s = status ?? {};
  const state: SolverState = { phase: s.phase ?? 'Pending', reason: s.reason ?? 'Deciding', message: s.message ?? '', attempts: s.attempts ?? 0 };
  const ids = Object.entries({ flavourId: s.flavorID, provider: s.provider, transactionId: s.transactionID, contractId: s.contractID, virtualNode: s.virtualNode, discoveries: s.discoveryAttempts, retryAt: s.nextAttemptTime }).filter(([, v]) => v !== undefined);
  return { ...state, ...Object.fromEntries(ids) };
}
