// Batched lease renewal (README, "Leases"), pure: a round's leases as one renewal per host, the
// digest both sides compute of a lease's terms, and the host's one answer. A full lease goes out
// only when what it says changed; the round names each lease by its digest, so a host whose
// HostRequest holds other terms (a full lease lost on the way) says `stale` and gets it again.
import { createHash } from 'node:crypto';
import type { ReachablePort } from '../../shared/crds/drone.ts';
import { MAX_RENEWALS, type LeaseRenewalMessage } from '../drone/messages/lease-renewal.ts';
import type { LeaseRenewedMessage, RenewedLease } from '../drone/messages/lease-renewed.ts';
import type { HostStatusMessage } from '../drone/messages/index.ts';
import type { HostStatusBody } from './host-plan.ts';
import type { LeaseBody } from './origin-plan.ts';

type Envelope = 'v' | 'id' | 'sender' | 'timestamp' | 'hops';
export type LeaseRenewalBody = Omit<LeaseRenewalMessage, Envelope>;
export type LeaseRenewedBody = Omit<LeaseRenewedMessage, Envelope>;

/** What a lease sets on the host (its HostRequest's spec), the workload standing in by its revision. */
export interface LeaseTerms {
  readonly revision?: string;
  readonly launch?: boolean;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly dependencyPorts?: Readonly<Record<string, readonly ReachablePort[]>>;
  readonly leaseSeconds: number;
  readonly movable?: boolean;
}

/** JSON with sorted keys and no undefined members: the API server returns stored objects in its own key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The digest of a lease's terms: the origin's of what it sent in full, the host's of its HostRequest's spec. */
export function leaseDigest(terms: LeaseTerms): string {
  const text = canonical({ revision: terms.revision ?? '', launch: terms.launch === true, dependencies: terms.dependencies ?? {}, dependencyPorts: terms.dependencyPorts ?? {}, leaseSeconds: terms.leaseSeconds, ...(terms.movable === true ? { movable: true } : {}) });
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** A round's renewals: one message per host naming every lease it holds (several past MAX_RENEWALS), hosts in order. */
export function renewalBatches(leases: readonly LeaseBody[], leaseSeconds: number, max = MAX_RENEWALS): LeaseRenewalBody[] {
  const byHost = new Map<string, LeaseRenewalBody['leases']>();
  for (const lease of leases) {
    const held = byHost.get(lease.to) ?? [];
    held.push({ app: lease.app, component: lease.component, digest: leaseDigest(lease) });
    byHost.set(lease.to, held);
  }
  const out: LeaseRenewalBody[] = [];
  for (const [to, held] of [...byHost].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (let i = 0; i < held.length; i += max) out.push({ kind: 'lease-renewal', to, leaseSeconds, leases: held.slice(i, i + max) });
  }
  return out;
}

/** What the host holds of one renewed lease: its HostRequest's spec (absent: none here), the status last told, and whether the agent still hosts it. */
export interface HeldLease {
  readonly key: string;
  readonly spec?: LeaseTerms;
  readonly told?: HostStatusBody;
  readonly hosted: boolean;
}

export interface RenewalOutcome {
  /** HostRequests whose lease this renewal extends. */
  readonly renewed: string[];
  /** HostRequests not reported yet: reconciled, and their reconcile tells the origin. */
  readonly reconcile: string[];
  /** The answer: one message (empty when there is nothing to say), or several when the statuses are long (ports, reasons). */
  readonly answers: LeaseRenewedBody[];
}

/** The host's side of a renewal: every lease it holds is renewed, and answered with where it stands, `stale`, or GONE. */
export function answerRenewal(msg: Pick<LeaseRenewalMessage, 'sender' | 'leases'>, held: (app: string, component: string) => HeldLease, self: string): RenewalOutcome {
  const renewed: string[] = [];
  const reconcile: string[] = [];
  const answers: RenewedLease[] = [];
  for (const { app, component, digest } of msg.leases) {
    const h = held(app, component);
    if (h.spec === undefined) {
      // held by the agent without its HostRequest (its creation failed): the full lease makes it again
      answers.push(h.hosted ? { app, component, stale: true } : { app, component, phase: 'GONE', reason: `${self} does not host ${component} of ${app}` });
      continue;
    }
    renewed.push(h.key);
    if (leaseDigest(h.spec) !== digest) answers.push({ app, component, stale: true });
    else if (h.told === undefined) reconcile.push(h.key);
    else answers.push({ app, component, ...h.told });
  }
  const chunks = packed(answers);
  // answered even with nothing to say: the origin learns this host takes renewals (olderHosts)
  return { renewed, reconcile, answers: (chunks.length === 0 ? [[]] : chunks).map((leases) => ({ kind: 'lease-renewed', to: msg.sender, leases })) };
}

/**
 * Hosts that have not answered a renewal for two rounds though renewed for longer: an agent of
 * the version before, whose codec refuses the kind. They get every lease in full each round,
 * as that version did, until one answers.
 */
export function olderHosts(hosts: Iterable<string>, heard: { readonly renewingSince: ReadonlyMap<string, number>; readonly answeredAt: ReadonlyMap<string, number> }, now: number, roundMs: number): string[] {
  return [...hosts].filter((h) => now - (heard.renewingSince.get(h) ?? now) > 2 * roundMs && now - (heard.answeredAt.get(h) ?? 0) > 2 * roundMs);
}

/** Answers in messages of at most ANSWER_BYTES of JSON, under the bus's 1 MiB payload bound with room for the envelope. */
export const ANSWER_BYTES = 512 * 1024;

function packed(answers: readonly RenewedLease[]): RenewedLease[][] {
  const out: RenewedLease[][] = [];
  let current: RenewedLease[] = [];
  let bytes = 0;
  for (const answer of answers) {
    const size = JSON.stringify(answer).length + 1;
    if (current.length > 0 && bytes + size > ANSWER_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(answer);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** The origin's side of an answer: the leases to send in full again, and each other entry as the host-status it stands for. */
export function renewedReports(msg: LeaseRenewedMessage): { stale: Array<{ app: string; component: string }>; reports: HostStatusMessage[] } {
  const stale: Array<{ app: string; component: string }> = [];
  const reports: HostStatusMessage[] = [];
  const { v, id, sender, timestamp, hops, to } = msg;
  for (const { stale: isStale, phase, ...rest } of msg.leases) {
    if (isStale === true || phase === undefined) stale.push({ app: rest.app, component: rest.component });
    else reports.push({ v, id, sender, timestamp, hops, to, kind: 'host-status', phase, ...rest });
  }
  return { stale, reports };
}
