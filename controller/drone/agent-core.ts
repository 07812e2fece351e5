// The DRONE agent's pure core: every input (a submitted job, a message, the resources daemon's
// figures, the clock) goes in with the time it happened; messages to publish and decision events
// come out. No I/O and no clock of its own, so a run is deterministic given its inputs.
import { EdgeshifuError } from '../../shared/errors.ts';
import { Validator } from '../../shared/validation.ts';
import type { DroneMessage } from './messages/index.ts';
import { Job, type Resources } from './model.ts';
import { onResources } from './core/host-replies.ts';
import { originTick, submit } from './core/origin-auction.ts';
import { fail } from './core/origin-commit.ts';
import { reclaimConflict, reclaimTick, startReclaim } from './core/reclaim-origin.ts';
import { flush, rebid } from './core/participant.ts';
import { receive } from './core/receive.ts';
import { appKey, emptyOutput, newCore, type CoreState, type DroneConfig, type Output } from './core/state.ts';
import { advertTick } from './core/adverts.ts';
import { nextWakeup, tick } from './core/tick.ts';
import { capacityView } from './core/view.ts';
import type { HostedEntry } from './host-ledger.ts';

export type { DroneConfig, DroneEvent, Outbound, Output, Timers } from './core/state.ts';
export { DEFAULT_TIMERS } from './core/state.ts';

const jobValidator = new Validator(Job, 'job');

export class DroneCore {
  private readonly state: CoreState;

  constructor(config: DroneConfig, free: Resources) {
    if (!(config.scalePercent >= 0 && config.scalePercent <= 100)) throw new EdgeshifuError('invalid', `scalePercent must be 0..100, got ${config.scalePercent}`);
    this.state = newCore(config, free);
  }

  get cluster(): string {
    return this.state.config.cluster;
  }

  /** A job submitted at this cluster (its origin must be this cluster). */
  submit(job: Job, now: number): Output {
    const valid = jobValidator.parse(job, `job ${JSON.stringify((job as Partial<Job>).app ?? '?')}`);
    if (valid.origin !== this.cluster) throw new EdgeshifuError('invalid', `job ${valid.app}: origin is ${valid.origin}, but this agent is ${this.cluster}`);
    return this.run(now, (out) => { submit(this.state, valid, now, out); });
  }

  /** The origin withdraws an app: the auction ends and hosts give back what they hold (DEL). */
  withdraw(app: string, now: number): Output {
    return this.run(now, (out) => {
      const state = this.state.apps.get(appKey(this.cluster, app));
      if (state !== undefined && !state.closed) fail({ state: this.state, now, out }, state, 'withdrawn by its origin');
      else out.messages.push({ body: { kind: 'advertisement', type: 'DEL', app, baseCluster: this.cluster, components: [], sealed: false } });
      // Components placed here (local first, or won by this cluster) are given back too.
      this.state.placements.delete(app);
      this.state.reclaims.delete(app);
      for (const entry of this.state.ledger.releaseApp(this.cluster, app)) {
        out.events.push({ type: 'release', app, origin: this.cluster, component: entry.component, reason: 'withdrawn by its origin' });
      }
    });
  }

  /**
   * A job that could not be placed whole, submitted again with reclaim (the DRONE design's
   * reclaim): placed as is if the federation's room allows, else after moving at most
   * `reclaimMoves` placed, not launched components; else it fails and nothing moves.
   */
  reclaim(job: Job, now: number): Output {
    const valid = jobValidator.parse(job, `job ${JSON.stringify((job as Partial<Job>).app ?? '?')}`);
    if (valid.origin !== this.cluster) throw new EdgeshifuError('invalid', `job ${valid.app}: origin is ${valid.origin}, but this agent is ${this.cluster}`);
    const conflict = reclaimConflict(this.state, valid.app);
    if (conflict !== undefined) throw new EdgeshifuError('conflict', conflict);
    return this.run(now, (out) => { startReclaim({ state: this.state, now, out }, valid); });
  }

  /**
   * A component launched (a host's HostRequest, or the origin's own placement): unless its
   * DroneFederatedDeployment allows moving it (`spec.movable`), no reclaim moves it from now on.
   * Told again with the other `movable` (the deployment's spec changed), it is unpinned or pinned again.
   */
  launched(which: { readonly origin: string; readonly app: string; readonly component: string; readonly movable: boolean }, now: number): Output {
    const { origin, app, component, movable } = which;
    return this.run(now, () => {
      this.state.ledger.pin(origin, app, component, !movable);
      const pinned = origin === this.cluster ? this.state.placements.get(app)?.pinned : undefined;
      if (movable) pinned?.delete(component);
      else pinned?.add(component);
    });
  }

  /** Where this origin's placed apps are now (a move re-points one). */
  placement(app: string): Readonly<Record<string, string>> | undefined {
    return this.state.placements.get(app)?.placement;
  }

  /** What this cluster hosted before a restart, rebuilt from Kubernetes (converge on restart). */
  restoreHosted(entries: readonly HostedEntry[], now: number): Output {
    return this.run(now, () => { for (const entry of entries) this.state.ledger.restore(entry); });
  }

  /** A hosted component ended or was deleted on this cluster: its slice is free again (DRONE v2's resource release). */
  releaseHosted(origin: string, app: string, component: string, now: number): Output {
    return this.run(now, () => {
      if (this.state.ledger.release(origin, app, component) !== undefined) rebid(this.state, now);
    });
  }

  receive(message: DroneMessage, now: number): Output {
    return this.receiveAll([message], now);
  }

  /** Messages that arrived together: each is handled, then agreement, votes and adverts are judged once for all. */
  receiveAll(messages: readonly DroneMessage[], now: number): Output {
    return this.run(now, (out) => { for (const message of messages) receive(this.state, message, now, out); });
  }

  /** The resources daemon's figures (thesis Resources message, as plain data). */
  setResources(free: Resources, now: number, scalePercent = this.state.scalePercent): Output {
    return this.run(now, (out) => { onResources({ state: this.state, now, out }, free, scalePercent); });
  }

  tick(now: number): Output {
    return this.run(now, (out) => { tick(this.state, now, out); });
  }

  /** When `tick` should run next. */
  nextWakeup(): number {
    return nextWakeup(this.state);
  }

  /** Components hosted here (HostRequests accepted and own placements). */
  hosted(): HostedEntry[] {
    return this.state.ledger.entries();
  }

  offered(): Resources {
    return capacityView(this.state).offered;
  }

  /** Clusters with a live slice advert. */
  providers(now: number): string[] {
    return this.state.slices.providers(now);
  }

  /** What each cluster with a live slice advert offers now, by cluster id (full ones too). */
  adverts(now: number): Array<{ readonly cluster: string; readonly offered: Resources }> {
    return this.state.slices.members(now).flatMap((cluster) => {
      const slice = this.state.slices.get(cluster, now);
      return slice === undefined ? [] : [{ cluster, offered: slice.offered }];
    });
  }

  private run(now: number, step: (out: Output) => void): Output {
    const out = emptyOutput();
    step(out);
    // Agreement is judged after every input, so the agreement timer starts when it should.
    for (const app of [...this.state.apps.values()]) if (app.origin === this.cluster) originTick(this.state, app, now, out);
    // A move of this cluster's own component may end on any input (its target's reply).
    if (this.state.reclaims.size > 0) reclaimTick({ state: this.state, now, out });
    flush(this.state, now, out);
    advertTick(this.state, now, out);
    return out;
  }
}
