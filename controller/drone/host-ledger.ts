// The host side of an OffloadRequest (DRONE v2 steps 9-14): accept (ACK, the slice is reserved
// for the origin: a HostRequest ACCEPTED) or refuse (NACK with a reason). Answers are remembered
// per request id, so a retransmitted request gets the same answer and is never acted on twice.
// The reservation covers the component's pods with its cpu and memory; releasing it frees them all.
import type { Held } from './auction/budget.ts';
import { describeResources, type Resources } from './model.ts';

/**
 * Entries whose app starts with this are capacity REAR sold under a contract (controller/rear/):
 * counted as used like any hosted component, but never reclaimed when the slice shrinks (a
 * contract holds until it ends or is withdrawn).
 */
export const SOLD_APP_PREFIX = 'rear.';

export interface HostedEntry extends Held {
  readonly requestId: string;
  readonly acceptedAt: number;
  /** Launched, and its deployment does not allow moving it: reclaim never offers it (core/reclaim-offers.ts). */
  readonly pinned?: boolean;
}

export interface HostAnswer {
  readonly verdict: 'ACK' | 'NACK';
  readonly reason?: string;
  /** False when this repeats an earlier answer (nothing new to act on). */
  readonly fresh: boolean;
}

export interface HostAsk {
  readonly origin: string;
  readonly requestId: string;
  readonly app: string;
  readonly component: string;
  readonly resources: Resources;
}

/**
 * What a foreign component reserves here: its resources, and at least one pod. A component
 * without `pods` comes from an origin older than pod slicing; it still runs a pod on this cluster.
 */
export function reservedFor(resources: Resources): Resources {
  return resources.pods === undefined ? { ...resources, pods: 1 } : resources;
}

function key(origin: string, app: string, component: string): string {
  return `${origin}/${app}/${component}`;
}

export class HostLedger {
  private readonly hosted = new Map<string, HostedEntry>();
  private readonly answers = new Map<string, { verdict: 'ACK' | 'NACK'; reason?: string }>();

  /** The same list until the next change: the capacity view's sums are memoised per list (auction/budget.ts). */
  private list?: readonly HostedEntry[];

  entries(): HostedEntry[] {
    return [...this.hosted.values()];
  }

  /** What is hosted, as a list that is not changed afterwards (a new one after each change). */
  current(): readonly HostedEntry[] {
    this.list ??= [...this.hosted.values()];
    return this.list;
  }

  private set(entry: HostedEntry): void {
    this.hosted.set(key(entry.origin, entry.app, entry.component), entry);
    this.list = undefined;
  }

  private delete(origin: string, app: string, component: string): void {
    if (this.hosted.delete(key(origin, app, component))) this.list = undefined;
  }

  has(origin: string, app: string, component: string): boolean {
    return this.hosted.has(key(origin, app, component));
  }

  /**
   * Answers an OffloadRequest; `admissible` checks the slice without this component, `refusal`
   * (when given) is this cluster's policy saying why it will not run it.
   */
  answer(ask: HostAsk, admissible: (need: Resources) => boolean, now: number, refusal?: string): HostAnswer {
    const answerKey = `${ask.origin}/${ask.requestId}`;
    const earlier = this.answers.get(answerKey);
    if (earlier !== undefined) return { ...earlier, fresh: false };
    let result: { verdict: 'ACK' | 'NACK'; reason?: string };
    if (this.has(ask.origin, ask.app, ask.component)) result = { verdict: 'ACK' };
    else if (refusal !== undefined) result = { verdict: 'NACK', reason: refusal };
    else {
      const need = reservedFor(ask.resources);
      if (admissible(need)) {
        result = { verdict: 'ACK' };
        this.set({ origin: ask.origin, app: ask.app, component: ask.component, resources: need, requestId: ask.requestId, acceptedAt: now });
      } else result = { verdict: 'NACK', reason: `component ${ask.component} (${describeResources(need)}) does not fit in what this cluster offers now` };
    }
    this.answers.set(answerKey, result);
    return { ...result, fresh: true };
  }

  /** Records a component placed on this cluster by its own decision (local first). */
  hostOwn(item: { origin: string; app: string; component: string; resources: Resources }, now: number): void {
    this.set({ ...item, requestId: `${item.app}/${item.component}/local`, acceptedAt: now });
  }

  /**
   * Takes back what this cluster held before a restart (from its HostRequests and placements):
   * a retransmitted request then gets the ACK it got before, and is not acted on twice.
   */
  restore(entry: HostedEntry): void {
    this.set(entry);
    this.answers.set(`${entry.origin}/${entry.requestId}`, { verdict: 'ACK' });
  }

  /** Drops every component of an app (DEL), returning what was dropped. */
  releaseApp(origin: string, app: string): HostedEntry[] {
    const dropped = this.entries().filter((e) => e.origin === origin && e.app === app);
    for (const e of dropped) this.delete(e.origin, e.app, e.component);
    // Request ids are `<app>.<component>.<attempt>`: the answers for a released app can go too.
    for (const answerKey of [...this.answers.keys()]) if (answerKey.startsWith(`${origin}/${app}.`)) this.answers.delete(answerKey);
    return dropped;
  }

  /**
   * The component launched here and may not move any more (its deployment does not allow it),
   * or, `pinned` false, may move again (its deployment was made movable).
   */
  pin(origin: string, app: string, component: string, pinned = true): boolean {
    const entry = this.hosted.get(key(origin, app, component));
    if (entry === undefined) return false;
    // unchanged: the list stays, and with it the memoised sums (hosts say LAUNCHED on every reconcile)
    if ((entry.pinned === true) === pinned) return true;
    this.set({ ...entry, pinned });
    return true;
  }

  release(origin: string, app: string, component: string): HostedEntry | undefined {
    const entry = this.hosted.get(key(origin, app, component));
    this.delete(origin, app, component);
    return entry;
  }
}
