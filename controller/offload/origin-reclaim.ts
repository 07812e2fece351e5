// Reclaim at the origin's reconciler (README.md, "Reclaim"): a deployment whose auction failed
// for want of room is submitted again with reclaim (DroneAgent.reclaim), at most once per change
// of the federation's slice adverts; components seen LAUNCHED are told to the agent, so reclaim
// leaves them where they run unless the deployment is `spec.movable`; and a `moved` decision
// re-points its component in the status, with a `Moved` Event once written.
import type { Logger } from '../../shared/log.ts';
import { errorMessage } from '../../shared/errors.ts';
import type { DroneAgent } from '../drone/agent.ts';
import type { OffloadApi } from './kube.ts';
import { deploymentOfApp, type Decision, type Status } from './origin-plan.ts';
import { advertsDigest, applyMove, awaitsMove, showsMove, type Moved } from './reclaim-plan.ts';
import type { DroneFederatedDeployment } from './workload.ts';

export interface OriginReclaimDeps {
  readonly api: OffloadApi;
  readonly agent: DroneAgent;
  readonly cluster: string;
  readonly logger: Logger;
}

/** The last reclaim of a deployment: the adverts it was tried with, its app, and why it failed. */
interface Tried {
  readonly digest: string;
  app?: string;
  reason?: string;
}

export class OriginReclaim {
  private readonly deps: OriginReclaimDeps;
  /** `moved` decisions per deployment, until the status shows them. */
  private readonly moves = new Map<string, Moved[]>();
  private readonly tried = new Map<string, Tried>();
  /** Components told to the agent as launched, per deployment (`<app>/<component>@<cluster>`), with the `movable` told. */
  private readonly pinned = new Map<string, Map<string, boolean>>();

  constructor(deps: OriginReclaimDeps) {
    this.deps = deps;
  }

  /** A component of this origin's app moved (make before break, at the agent); the deployment's key to reconcile. */
  moved(event: Moved): string | undefined {
    const owner = deploymentOfApp(event.app);
    if (owner === undefined) return undefined;
    const key = `${owner.namespace}/${owner.name}`;
    this.deps.logger.info({ deployment: key, component: event.component, from: event.from, to: event.to }, 'component moved');
    this.moves.set(key, [...(this.moves.get(key) ?? []), event]);
    return key;
  }

  /** The status with every move heard so far applied (in the order they came). */
  apply(key: string, status: Status): Status {
    let next = status;
    for (const move of this.moves.get(key) ?? []) next = applyMove(next, move, this.deps.cluster);
    return next;
  }

  /** The status was written: a `Moved` Event for each move it shows; moves it can no longer take are dropped. */
  async written(key: string, dfd: DroneFederatedDeployment, status: Status): Promise<void> {
    const moves = this.moves.get(key);
    if (moves === undefined) return;
    const left = moves.filter((m) => awaitsMove(status, m));
    if (left.length === 0) this.moves.delete(key);
    else this.moves.set(key, left);
    for (const m of moves.filter((x) => showsMove(status, x))) {
      // best effort, as Kubernetes Events are: the status already says where it runs
      await this.deps.api.event(dfd, 'Normal', 'Moved', `${m.component} moved from ${m.from} to ${m.to}: ${m.reason}`).catch((err: unknown) => {
        this.deps.logger.warn({ deployment: key, component: m.component, err: errorMessage(err) }, 'Moved event not recorded');
      });
    }
  }

  /**
   * After a failed decision: `reclaim` when the auction found no room and no reclaim was tried
   * with the adverts as they are now; else the reason the last reclaim with these adverts gave
   * (the status keeps saying it), if any.
   */
  afterFailure(key: string, decision: Decision | undefined): { readonly reclaim: boolean; readonly reason?: string } {
    if (decision?.type !== 'failed') return { reclaim: false };
    const tried = this.tried.get(key);
    if (tried !== undefined && decision.app === tried.app) {
      tried.reason = decision.reason;
      return { reclaim: false };
    }
    if (decision.room !== true) return { reclaim: false };
    const digest = advertsDigest(this.deps.agent.adverts());
    if (tried?.digest === digest) return { reclaim: false, ...(tried.reason === undefined ? {} : { reason: tried.reason }) };
    this.tried.set(key, { digest });
    return { reclaim: true };
  }

  /** The reclaim of `key` runs as `app`. */
  started(key: string, app: string): void {
    const tried = this.tried.get(key);
    if (tried !== undefined) tried.app = app;
  }

  /**
   * Components seen LAUNCHED (here or on their host) are told to the agent once, and again when
   * the deployment's `spec.movable` changes (unpinned, or pinned again): reclaim moves them only
   * while it is true.
   */
  launched(key: string, dfd: DroneFederatedDeployment, status: Status): void {
    const told = this.pinned.get(key) ?? new Map<string, boolean>();
    this.pinned.set(key, told);
    const movable = dfd.spec.movable === true;
    for (const c of status.components ?? []) {
      if (c.phase !== 'LAUNCHED' || c.app === undefined || c.cluster === undefined) continue;
      const id = `${c.app}/${c.name}@${c.cluster}`;
      if (told.get(id) === movable) continue;
      told.set(id, movable);
      this.deps.agent.launched({ origin: this.deps.cluster, app: c.app, component: c.name, movable });
    }
  }

  forget(key: string): void {
    this.moves.delete(key);
    this.tried.delete(key);
    this.pinned.delete(key);
  }
}
