// The proportion policy (DRONE v2's, README.md "Resource slicing"): weighted max-min water-filling
// of what a provider offers among the clusters that ask for it. Every round hands each unsatisfied
// requester `remaining × weight / Σweight` (all from the round's starting remaining), clamped per
// resource to its capability and then to its request; met requesters leave; stop when nothing
// remains or nothing changes. Pods are filled in a pass of their own (so the cpu and memory shares
// are exactly those of the worked examples) and then handed out whole: floors first, the pods left
// over to the largest remainders, so the shares still add up to what water-filling gave.
import { EdgeshifuError } from '../../../shared/errors.ts';
import type { Resources } from '../model.ts';

export interface ShareRequest {
  readonly cluster: string;
  /** Federation neighbour weight (Federation CR), > 0. */
  readonly weight: number;
  readonly request: Resources;
  /** Upper bound regardless of request (Volcano's capability). */
  readonly capability?: Resources;
}

type Key = 'cpu' | 'memory' | 'pods';
type Amounts = Record<Key, number>;

const EPSILON = 1e-9;

function validate(total: Resources, requests: readonly ShareRequest[]): void {
  if (total.cpu < 0 || total.memory < 0 || (total.pods ?? 0) < 0) throw new EdgeshifuError('invalid', 'proportion: the total to share must not be negative');
  const seen = new Set<string>();
  for (const r of requests) {
    if (!(r.weight > 0)) throw new EdgeshifuError('invalid', `proportion: weight of ${r.cluster} must be > 0, got ${r.weight}`);
    if (r.request.cpu < 0 || r.request.memory < 0 || (r.request.pods ?? 0) < 0) throw new EdgeshifuError('invalid', `proportion: request of ${r.cluster} must not be negative`);
    if (seen.has(r.cluster)) throw new EdgeshifuError('invalid', `proportion: ${r.cluster} asks twice`);
    seen.add(r.cluster);
  }
}

/** What a requester may get at most: its request, capped by its capability (absent pods: no pod asked, no cap). */
function limit(r: ShareRequest): Amounts {
  const cap = r.capability;
  const asked = { cpu: r.request.cpu, memory: r.request.memory, pods: r.request.pods ?? 0 };
  if (cap === undefined) return asked;
  return { cpu: Math.min(cap.cpu, asked.cpu), memory: Math.min(cap.memory, asked.memory), pods: Math.min(cap.pods ?? Number.POSITIVE_INFINITY, asked.pods) };
}

/** Water-filling of `keys` only; the other keys stay 0. */
function fill(total: Amounts, requests: readonly ShareRequest[], keys: readonly Key[]): Map<string, Amounts> {
  const deserved = new Map<string, Amounts>(requests.map((r) => [r.cluster, { cpu: 0, memory: 0, pods: 0 }]));
  const remaining = { ...total };
  const zero = (a: Amounts): boolean => keys.every((k) => a[k] <= EPSILON);
  let active = requests.filter((r) => !zero(limit(r)));
  for (let round = 0; active.length > 0 && !zero(remaining) && round < 64 + requests.length; round += 1) {
    const start = { ...remaining };
    const weights = active.reduce((s, r) => s + r.weight, 0);
    const next: ShareRequest[] = [];
    for (const r of active) {
      const before = deserved.get(r.cluster) ?? { cpu: 0, memory: 0, pods: 0 };
      const target = limit(r);
      const after = { ...before };
      for (const k of keys) after[k] = Math.min(before[k] + (start[k] * r.weight) / weights, target[k]);
      deserved.set(r.cluster, after);
      for (const k of keys) remaining[k] = Math.max(0, remaining[k] - (after[k] - before[k]));
      const grew = keys.some((k) => after[k] - before[k] > EPSILON);
      if (grew && keys.some((k) => after[k] < target[k] - EPSILON)) next.push(r);
    }
    active = next;
  }
  return deserved;
}

/** Fractional pod shares made whole: floors, then the pods left over to the largest remainders (ties: heavier, then by id). */
function wholePods(shares: ReadonlyMap<string, number>, requests: readonly ShareRequest[]): Map<string, number> {
  const whole = new Map([...shares].map(([c, p]) => [c, Math.floor(p + EPSILON)]));
  const given = [...shares.values()].reduce((s, p) => s + p, 0);
  let left = Math.round(given) - [...whole.values()].reduce((s, p) => s + p, 0);
  const weight = new Map(requests.map((r) => [r.cluster, r.weight]));
  const order = [...shares].map(([cluster, p]) => ({ cluster, rest: p - (whole.get(cluster) ?? 0) }))
    .filter((x) => x.rest > EPSILON)
    .sort((a, b) => b.rest - a.rest || (weight.get(b.cluster) ?? 0) - (weight.get(a.cluster) ?? 0) || (a.cluster < b.cluster ? -1 : 1));
  for (const x of order) {
    if (left <= 0) break;
    whole.set(x.cluster, (whole.get(x.cluster) ?? 0) + 1);
    left -= 1;
  }
  return whole;
}

/** Deserved share of each requester (cluster -> resources); pods only when `total` counts them. */
export function proportion(total: Resources, requests: readonly ShareRequest[]): Map<string, Resources> {
  validate(total, requests);
  const amounts = fill({ cpu: total.cpu, memory: total.memory, pods: 0 }, requests, ['cpu', 'memory']);
  const out = new Map<string, Resources>([...amounts].map(([c, a]) => [c, { cpu: a.cpu, memory: a.memory }]));
  if (total.pods === undefined) return out;
  const podShares = fill({ cpu: 0, memory: 0, pods: total.pods }, requests, ['pods']);
  const pods = wholePods(new Map([...podShares].map(([c, a]) => [c, a.pods])), requests);
  for (const [c, r] of out) out.set(c, { ...r, pods: pods.get(c) ?? 0 });
  return out;
}
