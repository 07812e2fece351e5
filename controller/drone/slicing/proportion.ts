// The proportion policy (seed 001 "Proportion Policy", REFERENCE §4): weighted max-min water-filling
// of what a provider offers among the clusters that ask for it. Every round hands each unsatisfied
// requester `remaining × weight / Σweight` (all from the round's starting remaining), clamped per
// resource to its capability and then to its request; met requesters leave; stop when nothing
// remains or nothing changes.
import { EdgeshifuError } from '../../../shared/errors.ts';
import { ZERO, fits, isZero, type Resources } from '../model.ts';

export interface ShareRequest {
  readonly cluster: string;
  /** Federation neighbour weight (Federation CR), > 0. */
  readonly weight: number;
  readonly request: Resources;
  /** Upper bound regardless of request (Volcano's capability). */
  readonly capability?: Resources;
}

const EPSILON = 1e-9;
const KEYS = ['cpu', 'memory'] as const;

function validate(total: Resources, requests: readonly ShareRequest[]): void {
  if (total.cpu < 0 || total.memory < 0) throw new EdgeshifuError('invalid', 'proportion: the total to share must not be negative');
  const seen = new Set<string>();
  for (const r of requests) {
    if (!(r.weight > 0)) throw new EdgeshifuError('invalid', `proportion: weight of ${r.cluster} must be > 0, got ${r.weight}`);
    if (r.request.cpu < 0 || r.request.memory < 0) throw new EdgeshifuError('invalid', `proportion: request of ${r.cluster} must not be negative`);
    if (seen.has(r.cluster)) throw new EdgeshifuError('invalid', `proportion: ${r.cluster} asks twice`);
    seen.add(r.cluster);
  }
}

function limit(r: ShareRequest): Resources {
  const cap = r.capability;
  return cap === undefined ? r.request : { cpu: Math.min(cap.cpu, r.request.cpu), memory: Math.min(cap.memory, r.request.memory) };
}

/** Deserved share of each requester (cluster -> resources). */
export function proportion(total: Resources, requests: readonly ShareRequest[]): Map<string, Resources> {
  validate(total, requests);
  const deserved = new Map<string, Resources>(requests.map((r) => [r.cluster, ZERO]));
  const remaining = { ...total };
  let active = requests.filter((r) => !isZero(limit(r)));
  for (let round = 0; active.length > 0 && !isZero(remaining) && round < 64 + requests.length; round += 1) {
    const start = { ...remaining };
    const weights = active.reduce((s, r) => s + r.weight, 0);
    const next: ShareRequest[] = [];
    for (const r of active) {
      const before = deserved.get(r.cluster) ?? ZERO;
      const target = limit(r);
      const after = { ...before };
      for (const k of KEYS) after[k] = Math.min(before[k] + (start[k] * r.weight) / weights, target[k]);
      deserved.set(r.cluster, after);
      for (const k of KEYS) remaining[k] = Math.max(0, remaining[k] - (after[k] - before[k]));
      const grew = KEYS.some((k) => after[k] - before[k] > EPSILON);
      if (grew && !fits(target, after)) next.push(r);
    }
    active = next;
  }
  return deserved;
}
