// The buyer's records as Kubernetes objects and back (pure): each peering candidate discovery
// found as a PeeringCandidate (its flavour in the Flavor's shape, who told of it, when it
// expires), and each reservation a Solver makes as a Reservation (the flavour, the seller, what
// it takes, then the seller's transaction id and expiry). A restarted buyer reads both back:
// the candidates before it discovers again, a reservation's expiry before it waits for a purchase.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Static } from '@sinclair/typebox';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { FlavorSpec, PeeringCandidateSpec, PeeringCandidateStatus, RESERVATION_PHASES, ReservationSpec } from '../../shared/crds/rear.ts';
import { isoTime } from '../../shared/time.ts';
import type { CachedFlavour, CandidateCache } from './core/discovery.ts';
import type { Flavour, Take } from './core/model.ts';
import { BUYER_LABEL, SOLVER_LABEL } from './buyer-records.ts';
import { flavorSpec } from './flavor-publisher.ts';
import { fromQuantities, toQuantities } from './quantities.ts';

export interface PeeringCandidateObject extends KubernetesObject { spec: Static<typeof PeeringCandidateSpec>; status?: Static<typeof PeeringCandidateStatus> }
export type ReservationPhase = typeof RESERVATION_PHASES[number];
export interface ReservationObject extends KubernetesObject {
  spec: Static<typeof ReservationSpec>;
  status?: { phase?: ReservationPhase; transactionID?: string; expiresAt?: string; message?: string };
}

/** The flavour a Flavor spec describes (the inverse of `flavorSpec`). */
export function flavourOf(s: FlavorSpec): Flavour {
  const q = (r: FlavorSpec['characteristics'], where: string): Flavour['characteristics'] => fromQuantities(r, where);
  const characteristics = q(s.characteristics, 'spec.flavor.characteristics');
  const { partitionable, aggregatable } = s.policy;
  const policy: Flavour['policy'] = partitionable !== undefined
    ? { kind: 'partitionable', min: q(partitionable.min, 'policy.min'), step: q(partitionable.step, 'policy.step') }
    : { kind: 'aggregatable', unit: characteristics, minCount: aggregatable?.minCount ?? 1, maxCount: aggregatable?.maxCount ?? 1 };
  return {
    id: s.flavorID, type: s.flavorType, architecture: s.architecture, characteristics, policy, ...(s.units === undefined ? {} : { units: s.units }),
    owner: { cluster: s.owner.nodeID, domain: s.owner.domain, address: s.owner.address },
    price: { amount: Number(s.price.amount), currency: s.price.currency, period: s.price.period }, available: s.availability,
  };
}

/** One PeeringCandidate per flavour, named by its id (flavour ids are DNS names), labelled with the buyer. */
export function candidateObject(c: CachedFlavour, namespace: string, buyer: string): PeeringCandidateObject {
  return {
    apiVersion: API_VERSION, kind: 'PeeringCandidate', metadata: { name: c.flavour.id, namespace, labels: { [BUYER_LABEL]: buyer } },
    spec: { flavor: flavorSpec(c.flavour), via: c.via, expiresAt: isoTime(c.expiresAt) },
  };
}

/** The candidate cache the objects hold, without those expired by `now` (or unreadable). */
export function candidatesOf(objects: readonly PeeringCandidateObject[], now: number): CandidateCache {
  const cache = new Map<string, CachedFlavour>();
  for (const o of objects) {
    const expiresAt = Date.parse(o.spec.expiresAt);
    if (!(expiresAt > now)) continue;
    try {
      const flavour = flavourOf(o.spec.flavor);
      cache.set(flavour.id, { flavour, via: o.spec.via, expiresAt });
    } catch { /* a hand-edited candidate that no longer parses is not one */ }
  }
  return cache;
}

/** What the cache gained and lost: candidates to write, names to delete. */
export function candidateChanges(before: CandidateCache, after: CandidateCache): { write: CachedFlavour[]; remove: string[] } {
  const write = [...after.values()].filter((c) => before.get(c.flavour.id) !== c);
  const remove = [...before.keys()].filter((id) => !after.has(id));
  return { write, remove };
}

/** A Solver's `attempt`th reservation: `<solver>-<attempt>`, kept a DNS name. */
export function reservationName(solver: string, attempt: number): string {
  const suffix = `-${attempt}`;
  return `${solver.slice(0, 253 - suffix.length).replace(/[-.]+$/, '')}${suffix}`;
}

/** A reservation as it starts: the flavour, its seller, what the Solver takes of it, and the RESERVE's request id. */
export function reservationObject(r: { solver: string; uid?: string; attempt: number; namespace: string; flavour: Flavour; take: Take; requestId: string }): ReservationObject {
  const { partition, units } = r.take;
  // owned by its Solver: deleting the Solver deletes its records
  const owner = r.uid === undefined ? {} : { ownerReferences: [{ apiVersion: API_VERSION, kind: 'Solver', name: r.solver, uid: r.uid }] };
  return {
    apiVersion: API_VERSION, kind: 'Reservation', metadata: { name: reservationName(r.solver, r.attempt), namespace: r.namespace, labels: { [SOLVER_LABEL]: r.solver }, ...owner },
    spec: { solver: r.solver, flavorID: r.flavour.id, seller: r.flavour.owner.cluster, ...(partition === undefined ? {} : { partition: toQuantities(partition) }), ...(units === undefined ? {} : { units }), requestID: r.requestId },
  };
}

/** The request id a Reservation's RESERVE went out with, while it is unanswered or held, when it reserves `flavourId`. */
export function pendingRequestOf(r: ReservationObject | undefined, flavourId: string): string | undefined {
  const phase = r?.status?.phase;
  if (r === undefined || r.spec.flavorID !== flavourId || (phase !== undefined && phase !== 'Reserving' && phase !== 'Reserved')) return undefined;
  return r.spec.requestID;
}

/** The seller's transaction expiry a Reservation holds (ms), if it was reserved. */
export function expiryOf(r: ReservationObject | undefined, transactionId: string): number | undefined {
  if (r?.status?.transactionID !== transactionId || r.status.expiresAt === undefined) return undefined;
  const at = Date.parse(r.status.expiresAt);
  return Number.isFinite(at) ? at : undefined;
}
