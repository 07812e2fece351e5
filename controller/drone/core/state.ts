// The state one DRONE agent owns (one instance per cluster; nothing at module level) and what its
// pure core hands back to the shell: messages to publish and decision events.
import type { BundleItem } from '../auction/bundle.ts';
import { VoteTable } from '../auction/vote-table.ts';
import { FedSlices } from '../fed-slices.ts';
import { HostLedger } from '../host-ledger.ts';
import type { DroneBody, VotesMessage } from '../messages/index.ts';
import type { VoteEntry } from '../messages/votes.ts';
import type { Component, Resources } from '../model.ts';
import type { MoveState, PlacedApp, ReclaimState } from './reclaim-state.ts';

export interface DroneConfig {
  readonly cluster: string;
  /** open: votes broadcast to all (CBBA); sealed: votes only to the origin, which decides (thesis ch. 9). */
  readonly mode: 'open' | 'sealed';
  /** Percentage of free capacity offered to the federation (thesis `scale`). */
  readonly scalePercent: number;
  /** Quiet time after every active provider agrees before the origin decides. */
  readonly agreementMs: number;
  /** Hard limit on an auction: the origin decides with what it has. */
  readonly weakAgreementMs: number;
  /** Re-broadcast of votes and open adverts while an auction runs (lost messages). */
  readonly gossipMs: number;
  readonly advertIntervalMs: number;
  readonly advertTtlMs: number;
  /** A changed slice is advertised at most this soon after the previous advert (default DEFAULT_ADVERT_GAP_MS). */
  readonly advertGapMs?: number;
  /** How long the origin waits for ACK/NACK before failing the app. */
  readonly replyTimeoutMs: number;
  /** Retransmission of an unanswered OffloadRequest (same request id). */
  readonly retryMs: number;
  /** Votes changes are batched this long, so a burst of peers' votes costs one broadcast, not one each. */
  readonly batchMs: number;
  /**
   * Providers an origin calls to bid in an auction's first round, the best by their slice adverts
   * (auction/candidates.ts); more are called only when those cannot place the app. Default
   * DEFAULT_FANOUT; 0: every provider, every time (the thesis's broadcast).
   */
  readonly fanout?: number;
  /** Federation neighbour weights (Federation CR) for the proportion policy. */
  readonly weights: ReadonlyMap<string, number>;
  /**
   * This cluster's policy on what it runs for others, checked when an OffloadRequest arrives (the
   * auction bids on resources only): a reason to refuse (NACK), or undefined to accept.
   */
  readonly admit?: (origin: string, component: Component) => string | undefined;
  /** Most placed components one reclaim moves to make room for a job (DEFAULT_RECLAIM_MOVES; 0: reclaim places only what fits as is). */
  readonly reclaimMoves?: number;
}

export const DEFAULT_RECLAIM_MOVES = 3;

export type Timers = Pick<DroneConfig, 'agreementMs' | 'weakAgreementMs' | 'gossipMs' | 'advertIntervalMs' | 'advertTtlMs' | 'advertGapMs' | 'replyTimeoutMs' | 'retryMs' | 'batchMs'>;

/**
 * agreementMs and batchMs are 0: the shell already handles every message of one event-loop turn
 * together and publishes once, and agreement already means that every bidder's latest votes, sent
 * after it rebid, name the origin's winners. Each timer cost 1-5 ms per leg on a loaded machine
 * (a setTimeout in a busy process), for no better placement (bench/drone.ts quality: 433 jobs of
 * 509 against 429 with 2 and 1 ms).
 */
export const DEFAULT_TIMERS: Timers = {
  agreementMs: 0, weakAgreementMs: 2_000, gossipMs: 250, advertIntervalMs: 5_000, advertTtlMs: 15_000, replyTimeoutMs: 3_000, retryMs: 250, batchMs: 0,
};

export type DroneEvent =
  | { readonly type: 'placed'; readonly app: string; readonly origin: string; readonly placement: Readonly<Record<string, string>> }
  /** `room`: no cluster had room for a component (the auction's own failure, which a reclaim may mend). */
  | { readonly type: 'failed'; readonly app: string; readonly origin: string; readonly reason: string; readonly room?: true }
  | { readonly type: 'host'; readonly app: string; readonly origin: string; readonly component: Component }
  | { readonly type: 'release'; readonly app: string; readonly origin: string; readonly component: string; readonly reason: string }
  | { readonly type: 'moved'; readonly app: string; readonly origin: string; readonly component: string; readonly from: string; readonly to: string; readonly reason: string }
  | { readonly type: 'acknowledged'; readonly app: string; readonly from: string; readonly component: string; readonly typeAck: string };

export interface Outbound {
  /** Recipient of a directed message; absent for a broadcast. */
  readonly to?: string;
  /** Recipients of a message for several clusters (the body goes to each of them; addressing.ts says how). */
  readonly recipients?: readonly string[];
  readonly body: DroneBody;
}

export interface Output {
  readonly messages: Outbound[];
  readonly events: DroneEvent[];
}

export interface Report {
  readonly winners: Readonly<Record<string, string>>;
  readonly bidder: boolean;
  /** The sender's round (votes) or timestamp (sealed votes): a later report replaces an earlier one. */
  readonly at: number;
}

export interface PendingRequest {
  readonly cluster: string;
  readonly requestId: string;
  readonly deadline: number;
  lastSent: number;
}

export interface CommitState {
  readonly pending: Map<string, PendingRequest>;
  readonly accepted: Map<string, string>;
  readonly refused: Map<string, Set<string>>;
  /** Components every voter refused, waiting (since when) for the bids of providers called since. */
  readonly waiting: Map<string, number>;
  attempts: number;
}

export interface AppState {
  readonly key: string;
  readonly app: string;
  readonly origin: string;
  readonly sealed: boolean;
  /** The job asked to leave its origin: the origin does not vote on it. */
  readonly offload: boolean;
  components: Component[];
  readonly openedAt: number;
  /** Origin: when the latest round of calls began (the weak-agreement deadline counts from it); peers: the last announcement heard. */
  roundAt: number;
  readonly table: VoteTable;
  readonly settled: Set<string>;
  /** Components this cluster refused to host (NACK): its vote on them is 0 from then on, so another cluster can win them. */
  readonly declined: Set<string>;
  readonly reports: Map<string, Report>;
  /** The providers called to bid (origin: whom it asked; open-mode peers: the advert's list); undefined: everyone. */
  called?: Set<string>;
  closed: boolean;
  /** When it closed; closed apps are kept a while to answer late messages, then forgotten. */
  closedAt?: number;
  blacklisted: boolean;
  dirty: boolean;
  /**
   * Open mode: this cluster's own entries, as they stand for the others, and the audience of its
   * last votes message to the other bidders; a report that changes neither goes to the origin only
   * (participant.ts votesAudience).
   */
  toldBidders?: { readonly votes: ReadonlyMap<string, VoteEntry>; readonly audience: string };
  /** Open mode: the next votes message goes to every bidder whatever changed (the origin announced the app again). */
  tellAll: boolean;
  lastBroadcast: number;
  /** Origin only: when the ADD advert went out last (re-sent while the auction runs). */
  lastAnnounced: number;
  /** Origin only: how often it announced the app again (each wait doubles, see tick.ts). */
  announcements: number;
  lastWinners: Record<string, string>;
  agreeSince?: number;
  /** Origin only: agreed but partly placed, waiting for a worse app to be blacklisted first. */
  deferred: boolean;
  commit?: CommitState;
  lastSolution?: DroneBody;
  lastSolutionAt: number;
  /** Committed as a reclaim decided (reclaim-origin.ts): a refusal fails it, with no votes to fall back on and no wider round. */
  direct?: boolean;
}

export interface CoreState {
  readonly config: DroneConfig;
  free: Resources;
  scalePercent: number;
  readonly ledger: HostLedger;
  readonly slices: FedSlices;
  readonly apps: Map<string, AppState>;
  bundle: BundleItem[];
  /** Sealed bids outstanding per app key, until the solution or their expiry. */
  readonly reservations: Map<string, { items: BundleItem[]; expiresAt: number }>;
  advertSeq: number;
  /** Timestamp of this cluster's last own vote: each new one is later, so peers never hold two revisions with one time. */
  lastVoteAt: number;
  /** Counter of this cluster's votes messages (their `round`). */
  votesRound: number;
  /** When the first unsent votes change happened (batched until batchMs later). */
  dirtySince?: number;
  lastAdvertAt: number;
  lastAdvertised?: Resources;
  /** When a changed slice that waits for the advert gap goes out. */
  advertDueAt?: number;
  /**
   * Votes for an app not heard of yet, by app key: a bidder called with others may hear their
   * votes before its own advertisement arrives. Kept until the advertisement (then merged) or a
   * gossip period, at most EARLY_VOTES_MAX apps.
   */
  readonly earlyVotes: Map<string, { readonly at: number; readonly votes: VotesMessage[] }>;
  /** Origin: its placed apps, by app name (a move re-points one; withdraw and failure forget them). */
  readonly placements: Map<string, PlacedApp>;
  /** Moves of this cluster's components that another origin asked for, by `<requester>/<moveId>`. */
  readonly moves: Map<string, MoveState>;
  /** Reclaims this cluster runs for its own jobs, by app name. */
  readonly reclaims: Map<string, ReclaimState>;
}

export const EARLY_VOTES_MAX = 256;

/** One step of the core: its state, the time and where its output goes. */
export interface Step {
  readonly state: CoreState;
  readonly now: number;
  readonly out: Output;
}

export function appKey(origin: string, app: string): string {
  return `${origin}/${app}`;
}

export function newCore(config: DroneConfig, free: Resources): CoreState {
  return {
    config, free, scalePercent: config.scalePercent, ledger: new HostLedger(), slices: new FedSlices(), apps: new Map(), bundle: [],
    reservations: new Map(), earlyVotes: new Map(), placements: new Map(), moves: new Map(), reclaims: new Map(), advertSeq: 0, lastVoteAt: Number.NEGATIVE_INFINITY, votesRound: 0, lastAdvertAt: Number.NEGATIVE_INFINITY,
  };
}

export function newApp(key: string, fields: { app: string; origin: string; sealed: boolean; components: Component[]; openedAt: number; offload?: boolean }): AppState {
  return {
    key, ...fields, offload: fields.offload ?? false, table: new VoteTable(), settled: new Set(), declined: new Set(), reports: new Map(), closed: false, blacklisted: false, dirty: true, tellAll: false, deferred: false,
    roundAt: fields.openedAt, lastBroadcast: fields.openedAt, lastAnnounced: fields.openedAt, announcements: 0, lastWinners: {}, lastSolutionAt: Number.NEGATIVE_INFINITY,
  };
}

export function emptyOutput(): Output {
  return { messages: [], events: [] };
}
