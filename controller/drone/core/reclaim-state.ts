// What the reclaim protocol keeps (the DRONE design's reclaim: at most `reclaimMoves` placed,
// not yet launched components move, one after the other, so that an arriving job fits): the origin's placed apps, the
// moves this cluster carries out as the moved component's origin, and the reclaims it runs as the
// origin of a job that did not fit.
import type { Job, Component } from '../model.ts';
import type { ReclaimOffer, ReclaimDecision } from './reclaim-decide.ts';

/** An app this origin placed: where each component is, and which ones launched and may not move. */
export interface PlacedApp {
  readonly components: readonly Component[];
  readonly placement: Record<string, string>;
  readonly pinned: Set<string>;
}

/** One move, at the moved component's origin: reserve at the target, then release at the old host, then reply. */
export interface MoveState {
  /** Who asked, and its id for the move (a duplicate request gets the same reply). */
  readonly requester: string;
  readonly moveId: string;
  readonly app: string;
  readonly component: string;
  readonly from: string;
  readonly target: string;
  readonly requestId: string;
  phase: 'reserving' | 'releasing' | 'moved' | 'refused';
  reason?: string;
  readonly deadline: number;
  lastSent: number;
  /** When it ended (moved or refused); kept a while to answer duplicates, then forgotten. */
  doneAt?: number;
}

/** A reclaim at the origin of the job that did not fit: offers, then the decided moves one at a time, then the direct commit. */
export interface ReclaimState {
  readonly job: Job;
  readonly called: ReadonlySet<string>;
  readonly offers: Map<string, ReclaimOffer>;
  readonly startedAt: number;
  phase: 'offers' | 'moving';
  decision?: ReclaimDecision;
  /** The move under way: its index in `decision.moves`, its id (one per move, so a reply is never taken for another) and since when. */
  moveIndex?: number;
  moveId?: string;
  movingSince?: number;
  lastSent: number;
}
