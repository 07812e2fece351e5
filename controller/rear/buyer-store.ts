// The buyer's memory in resources (thin shell over buyer-objects.ts): the peering-candidate cache
// as PeeringCandidates in REAR's namespace, and each reservation as a Reservation in its Solver's
// namespace (owned by the Solver). Written before the step they record goes on, so a restarted
// controller consults the same candidates before discovering again and knows when a held
// reservation expires: it stops waiting for the purchase then, as before the restart.
import type { KubernetesListObject } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { kubeStatusOf } from '../../shared/kube/errors.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import { isoTime } from '../../shared/time.ts';
import type { CandidateCache } from './core/discovery.ts';
import type { Flavour, Take } from './core/model.ts';
import { BUYER_LABEL } from './buyer-records.ts';
import { candidateChanges, candidateObject, candidatesOf, expiryOf, pendingRequestOf, reservationName, reservationObject, type PeeringCandidateObject, type ReservationObject, type ReservationPhase } from './buyer-objects.ts';

export interface BuyerStoreOptions {
  readonly client: KubeClient;
  /** Where the PeeringCandidates live (REAR's namespace). */
  readonly namespace: string;
  readonly buyer: string;
  readonly clock?: () => number;
}

/** A Solver's reservation: which Solver (and its uid, to own the record) and which attempt. */
export interface ReservationRef {
  readonly namespace: string;
  readonly solver: string;
  readonly uid?: string;
  readonly attempt: number;
}

const APPLY = { contentType: 'application/apply-patch+yaml', query: { fieldManager: 'edgeshifu-rear', force: true } } as const;
const MERGE = 'application/merge-patch+json';

export class BuyerStore {
  private readonly o: BuyerStoreOptions;
  private last: CandidateCache = new Map();
  /** Candidate writes in order: each diffs against what the one before left. */
  private writing: Promise<void> = Promise.resolve();

  constructor(options: BuyerStoreOptions) {
    this.o = options;
  }

  private path(plural: 'peeringcandidates' | 'reservations', namespace: string, name?: string): string {
    return `/apis/${API_VERSION}/namespaces/${namespace}/${plural}${name === undefined ? '' : `/${name}`}`;
  }

  /** The candidates a restarted buyer still knows; expired ones are deleted. */
  async loadCandidates(): Promise<CandidateCache> {
    const list = await this.o.client.request<KubernetesListObject<PeeringCandidateObject>>('GET', this.path('peeringcandidates', this.o.namespace), { query: { labelSelector: `${BUYER_LABEL}=${this.o.buyer}` } });
    this.last = candidatesOf(list.items, (this.o.clock ?? Date.now)());
    for (const o of list.items) if (!this.last.has(o.metadata?.name ?? '')) await this.remove(o.metadata?.name ?? '');
    return this.last;
  }

  /** Makes the PeeringCandidates what the cache now holds (written in order; a failed write is retried with the next change). */
  keepCandidates(next: CandidateCache): Promise<void> {
    const run = this.writing.then(async () => {
      const { write, remove } = candidateChanges(this.last, next);
      for (const c of write) {
        await this.o.client.request('PATCH', this.path('peeringcandidates', this.o.namespace, c.flavour.id), { body: candidateObject(c, this.o.namespace, this.o.buyer), ...APPLY });
      }
      for (const name of remove) await this.remove(name);
      this.last = next;
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async remove(name: string): Promise<void> {
    await this.o.client.request('DELETE', this.path('peeringcandidates', this.o.namespace, name)).catch((err: unknown) => { if (kubeStatusOf(err)?.code !== 404) throw err; });
  }

  /** The Reservation as the RESERVE leaves, with its request id: phase Reserving. */
  async reserving(ref: ReservationRef, flavour: Flavour, take: Take, requestId: string): Promise<void> {
    await this.o.client.request('PATCH', this.path('reservations', ref.namespace, reservationName(ref.solver, ref.attempt)), { body: reservationObject({ ...ref, flavour, take, requestId }), ...APPLY });
    await this.status(ref, { phase: 'Reserving', message: `reserving flavour ${flavour.id} from ${flavour.owner.cluster}` });
    await this.reservedBy(flavour.id, `${ref.namespace}/${ref.solver}`);
  }

  /** The seller's answer: its transaction and when it expires (what a restarted buyer waits by). */
  async reserved(ref: ReservationRef, transactionId: string, expiresAt: number): Promise<void> {
    await this.status(ref, { phase: 'Reserved', transactionID: transactionId, expiresAt: isoTime(expiresAt), message: `transaction ${transactionId} held until ${isoTime(expiresAt)}; purchasing` });
  }

  /** How it ended: purchased, refused or expired (a Reservation that was never written is left so); its candidate is no longer reserved. */
  async settled(ref: ReservationRef, phase: Exclude<ReservationPhase, 'Reserving' | 'Reserved'>, message: string, flavourId?: string): Promise<void> {
    await this.status(ref, { phase, message: message.slice(0, 1024) }).catch((err: unknown) => { if (kubeStatusOf(err)?.code !== 404) throw err; });
    if (flavourId !== undefined) await this.reservedBy(flavourId, null);
  }

  /** The PeeringCandidate's `status.reservedBy`: the Solver reserving it (`<namespace>/<name>`), or null once that reservation ended. A candidate no longer kept is left so. */
  async reservedBy(flavourId: string, solver: string | null): Promise<void> {
    await this.o.client.request('PATCH', `${this.path('peeringcandidates', this.o.namespace, flavourId)}/status`, { body: { status: { reservedBy: solver } }, contentType: MERGE })
      .catch((err: unknown) => { if (kubeStatusOf(err)?.code !== 404) throw err; });
  }

  /** When the seller's transaction expires, as the Reservation recorded it. */
  async expiry(ref: ReservationRef, transactionId: string): Promise<number | undefined> {
    return expiryOf(await this.reservation(ref), transactionId);
  }

  /** The request id this attempt's RESERVE of `flavourId` already went out with (a restart sends it again), if any. */
  async pendingRequest(ref: ReservationRef, flavourId: string): Promise<string | undefined> {
    return pendingRequestOf(await this.reservation(ref), flavourId);
  }

  private async reservation(ref: ReservationRef): Promise<ReservationObject | undefined> {
    return this.o.client.request<ReservationObject>('GET', this.path('reservations', ref.namespace, reservationName(ref.solver, ref.attempt))).catch((err: unknown) => {
      if (kubeStatusOf(err)?.code === 404) return undefined;
      throw err;
    });
  }

  private async status(ref: ReservationRef, status: NonNullable<ReservationObject['status']>): Promise<void> {
    await this.o.client.request('PATCH', `${this.path('reservations', ref.namespace, reservationName(ref.solver, ref.attempt))}/status`, { body: { status }, contentType: MERGE });
  }
}
