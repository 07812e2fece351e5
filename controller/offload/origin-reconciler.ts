// The offloading side (the origin, README.md): a DroneFederatedDeployment is put to auction, its
// components run here (local first) or on the neighbour that won them, tracked by one
// OffloadRequest each (their hosts' reports and silence: origin-hosts.ts); callers reach remote
// components under their own Service names (origin-objects.ts). Deleting it sends DEL and waits,
// bounded, for the hosts' DEL_ACK. Reconcile reads the world afresh each time; decisions and host
// reports only enqueue.
import type { V1Deployment, V1EndpointSlice, V1Node, V1Service } from '@kubernetes/client-node';
import { objectKey, type Informer } from '../../shared/kube/informer.ts';
import type { Logger } from '../../shared/log.ts';
import type { OffloadRequestSpec, OffloadRequestStatus } from '../../shared/crds/drone.ts';
import type { CustomObject } from '../../shared/crds/resources.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import type { DroneAgent } from '../drone/agent.ts';
import type { HostStatusMessage } from '../drone/messages/index.ts';
import { OriginHosts } from './origin-hosts.ts';
import { OriginObjects } from './origin-objects.ts';
import { RetryTurns } from './retry-turns.ts';
import type { ReconcileResult } from '../runner.ts';
import type { OffloadApi } from './kube.ts';
import { applyDecision, deploymentOfApp, type Refusal, observe, returnLost, startAuction, unplaced, type Decision, type Status } from './origin-plan.ts';
import { jobOf, validateDeployment, type DroneFederatedDeployment } from './workload.ts';
import { OriginLeases } from './origin-leases.ts';
import { OriginReclaim } from './origin-reclaim.ts';
import { OriginStatus } from './origin-status.ts';

export type OffloadRequest = CustomObject<OffloadRequestSpec, OffloadRequestStatus>;
export const FINALIZER = 'drone.edgeshifu.io/release';

export interface OriginSideDeps {
  readonly api: OffloadApi;
  readonly agent: DroneAgent;
  readonly cluster: string;
  readonly deployments: Informer<DroneFederatedDeployment>;
  readonly requests: Informer<OffloadRequest>;
  readonly workloads: Informer<V1Deployment>;
  /** Services and EndpointSlices labelled with a component: what was applied is checked against them. */
  readonly services: Informer<V1Service>;
  readonly slices: Informer<V1EndpointSlice>;
  /** Nodes, for the address neighbours reach this cluster's NodePorts at when none is configured. */
  readonly nodes: Informer<V1Node>;
  readonly publicAddress?: string;
  readonly leaseSeconds: number;
  readonly releaseTimeoutSeconds: number;
  readonly retrySeconds: number;
  readonly logger: Logger;
  /** Whether the agent has had time to hear its neighbours' slice adverts since it started. */
  readonly settled?: () => boolean;
  /** Reconciles a deployment again (its turn to be re-auctioned came). */
  readonly wake?: (key: string) => void;
}

export class OriginSide {
  private readonly deps: OriginSideDeps;
  /** Apps put to auction by this process and their components (an app from before a restart is auctioned anew). */
  private readonly submittedFor = new Map<string, Set<string>>();
  private readonly failedAt = new Map<string, number>();
  private readonly refusedSince = new Set<string>();
  /** Hosts' refusals per deployment, by host and component: the FAILED status says them. */
  private readonly refusals = new Map<string, Map<string, Refusal>>();
  private readonly decisions = new Map<string, Decision>();
  private readonly delAcks = new Map<string, Set<string>>();
  private readonly withdrawnAt = new Map<string, number>();
  /** The hosts of remote components: their reports, their silence, and who sits out the next auctions. */
  private readonly hosts: OriginHosts;
  readonly leases: OriginLeases;
  /** What each component runs as: its Deployment and Service here, or its OffloadRequest and a Service for it. */
  private readonly objects: OriginObjects;
  /** Status writes, and each deployment's last one until the cache shows it (origin-status.ts). */
  private readonly statuses: OriginStatus;
  /** Failed deployments are re-auctioned one at a time (retry-turns.ts). */
  private readonly turns: RetryTurns;
  /** Reclaim after a failure for want of room, launched components, and moves (origin-reclaim.ts). */
  readonly reclaims: OriginReclaim;

  constructor(deps: OriginSideDeps) {
    this.deps = deps;
    this.turns = new RetryTurns(Math.max(30_000, 2 * deps.retrySeconds * 1000));
    this.hosts = new OriginHosts(deps);
    this.leases = new OriginLeases(deps);
    this.reclaims = new OriginReclaim(deps);
    this.statuses = new OriginStatus(deps);
    this.objects = new OriginObjects(deps, (component) => { this.hosts.heardFrom(component); }, (key) => this.hosts.request(key));
  }

  /** What this cluster runs itself for its deployments, back in the agent's ledger after a restart. */
  restore(): void {
    const now = Date.now();
    const entries = this.deps.deployments.list().flatMap((dfd) => (dfd.status?.components ?? [])
      .filter((c) => c.cluster === this.deps.cluster && c.app !== undefined)
      .map((c) => {
        const spec = dfd.spec.components.find((s) => s.name === c.name);
        const resources = spec === undefined ? { cpu: 0, memory: 0 } : jobOf(dfd, { origin: this.deps.cluster, app: c.app ?? '', components: [c.name] }).components[0]?.resources ?? { cpu: 0, memory: 0 };
        return { origin: this.deps.cluster, app: c.app ?? '', component: c.name, resources, requestId: `${c.app ?? ''}/${c.name}/local`, acceptedAt: now };
      }));
    if (entries.length > 0) this.deps.agent.restoreHosted(entries);
  }

  /** An agreement ended (placed or failed): recorded, and the deployment reconciled to write it. */
  onDecision(event: Decision | Extract<Parameters<OriginSide['onAck']>[0], object>): string | undefined {
    const owner = deploymentOfApp(event.app);
    if (owner === undefined) return undefined;
    if (event.type === 'acknowledged') return this.onAck(event);
    this.decisions.set(event.app, event);
    for (const waiting of this.turns.decided(event.app)) this.deps.wake?.(waiting);
    return `${owner.namespace}/${owner.name}`;
  }

  onAck(event: { type: 'acknowledged'; app: string; from: string; component: string; typeAck: string }): string | undefined {
    const owner = deploymentOfApp(event.app);
    if (owner === undefined) return undefined;
    const key = `${owner.namespace}/${owner.name}`;
    this.deps.logger.info({ deployment: key, component: event.component, from: event.from, ack: event.typeAck }, 'acknowledged');
    if (event.typeAck === 'DEL_ACK') {
      const acked = this.delAcks.get(key) ?? new Set<string>();
      acked.add(event.component);
      this.delAcks.set(key, acked);
    }
    return key;
  }

  /** A host refused a component (NACK): the next auction for this deployment leaves it out. */
  onRefused(event: { app: string; host: string; component: string; reason: string }): string | undefined {
    const owner = deploymentOfApp(event.app);
    if (owner === undefined) return undefined;
    const key = `${owner.namespace}/${owner.name}`;
    const held = this.refusals.get(key) ?? new Map<string, Refusal>();
    // a refusal is of the template as it was: one of an earlier generation says nothing of a fixed one
    const generation = this.deps.deployments.get(key)?.metadata.generation;
    held.set(`${event.host}/${event.component}`, { host: event.host, component: event.component, reason: event.reason, ...(generation === undefined ? {} : { generation }) });
    this.refusals.set(key, held);
    if (!this.hosts.excludedFrom(key).includes(event.host)) this.refusedSince.add(key);
    this.hosts.exclude(key, event.host);
    return key;
  }

  /** A host's report on one component: kept on its OffloadRequest. */
  async onHostStatus(msg: HostStatusMessage): Promise<string | undefined> {
    return this.hosts.report(msg);
  }

  reconcile = async (key: string, log: Logger): Promise<ReconcileResult> => {
    const dfd = this.statuses.latest(key);
    if (dfd === undefined) {
      this.forget(key);
      return {};
    }
    if (dfd.metadata.deletionTimestamp !== undefined) return this.release(key, dfd, log);
    if (!(dfd.metadata.finalizers ?? []).includes(FINALIZER)) {
      await this.deps.api.setFinalizers('DroneFederatedDeployment', dfd, [...(dfd.metadata.finalizers ?? []), FINALIZER]);
      return {};
    }
    try {
      validateDeployment(dfd);
    } catch (err) {
      if (!isEdgeshifuError(err, 'invalid')) throw err;
      await this.write(dfd, { ...dfd.status, observedGeneration: dfd.metadata.generation, phase: 'FAILED', reason: err.message });
      return {};
    }
    const clash = await this.objects.clash(key, dfd);
    if (clash !== undefined) {
      await this.write(dfd, { ...dfd.status, observedGeneration: dfd.metadata.generation, phase: 'FAILED', reason: clash });
      // looked at again later: the other holder may go
      return { requeueAfterMs: this.deps.retrySeconds * 1000 };
    }
    return this.advance(key, dfd, log);
  };

  private async advance(key: string, dfd: DroneFederatedDeployment, log: Logger): Promise<ReconcileResult> {
    let status: Status = dfd.status ?? {};
    const decision = status.app === undefined ? undefined : this.decisions.get(status.app);
    if (decision !== undefined) {
      status = applyDecision(status, decision, this.deps.cluster);
      if (decision.type === 'failed' && !this.failedAt.has(key)) this.failedAt.set(key, Date.now());
    }
    status = this.reclaims.apply(key, status);
    if (status.phase === undefined) return this.auction(dfd, status, log);
    if (status.phase === 'FAILED') return this.retryLater(key, dfd, status, log);
    status = returnLost(status, this.hosts.lost(key, status));
    const waiting = unplaced(status);
    if (waiting.length > 0) {
      const covered = status.app === undefined ? undefined : this.submittedFor.get(status.app);
      const decided = status.app !== undefined && this.decisions.has(status.app);
      if (covered === undefined || decided || waiting.some((c) => !covered.has(c))) return this.auction(dfd, status, log);
      await this.write(dfd, status);
      return {};
    }
    const seen = await this.objects.run(dfd, status);
    status = { ...observe(status, seen), observedGeneration: dfd.metadata.generation };
    // leases first: a host waited for this write (a round trip to the API) before it could start
    this.leases.send(key, dfd, status);
    if (this.hosts.defer(key)) return {}; // another report is being kept: one write for the batch
    await this.write(dfd, status);
    this.reclaims.launched(key, dfd, status);
    return {}; // no periodic reconcile: host reports, the caches and renewRound wake it
  }

  /** A failed deployment is put to auction again after a while, or at once when its spec changed. */
  private async retryLater(key: string, dfd: DroneFederatedDeployment, failed: Status, log: Logger): Promise<ReconcileResult> {
    // no room: reclaim once per change of the adverts; else the status keeps what the last reclaim found
    const after = this.reclaims.afterFailure(key, failed.app === undefined ? undefined : this.decisions.get(failed.app));
    if (after.reclaim) return this.auction(dfd, failed, log, true);
    const status = after.reason === undefined || (failed.reason ?? '').includes(after.reason) ? failed : { ...failed, reason: `${failed.reason ?? ''}; ${after.reason}` };
    const waited = Date.now() - (this.failedAt.get(key) ?? 0);
    // a refusal learned since: try again at once without the refusing host
    const learned = this.refusedSince.delete(key);
    const due = waited >= this.deps.retrySeconds * 1000;
    if (learned || status.observedGeneration !== dfd.metadata.generation || (due && this.turns.take(key, Date.now()))) {
      this.failedAt.delete(key);
      return this.auction(dfd, status, log);
    }
    await this.write(dfd, status);
    // due, but another failed deployment is being re-auctioned: woken when its turn comes
    return { requeueAfterMs: due ? this.turns.turnMs : this.deps.retrySeconds * 1000 - waited };
  }

  /** Writes SCHEDULING with a new app id first, then submits (or reclaims): a crash in between re-auctions under a newer id. */
  private async auction(dfd: DroneFederatedDeployment, status: Status, log: Logger, reclaim = false): Promise<ReconcileResult> {
    // a fresh agent (start, fail-over) knows no provider yet: an auction now would fail for nothing
    if (this.deps.settled?.() === false) return { requeueAfterMs: 250 };
    // an auction from before a restart that placed nothing yet: hosts that accepted parts of it let go
    const old = status.app;
    if (old !== undefined && !this.submittedFor.has(old) && !(status.components ?? []).some((c) => c.app === old)) this.withdraw(old);
    const next = startAuction(dfd, status, reclaim ? 'no cluster has room as things are: reclaim looks for a component to move' : undefined);
    await this.write(dfd, next);
    const app = next.app ?? '';
    const excluded = this.hosts.excludedFrom(objectKey(dfd));
    this.submittedFor.set(app, new Set(unplaced(next)));
    const job = jobOf(dfd, { origin: this.deps.cluster, app, components: unplaced(next), excluded });
    log.info({ app, components: unplaced(next), excluded }, reclaim ? 'reclaiming' : 'put to auction');
    if (reclaim) this.reclaims.started(objectKey(dfd), app);
    else this.turns.started(objectKey(dfd), app);
    if (reclaim) this.deps.agent.reclaim(job);
    else this.deps.agent.submit(job);
    return {};
  }

  /** A renewal round (README, "Leases"): one message per host; a deployment whose host has been silent for a lease is reconciled. */
  renewRound(): number {
    const now = Date.now();
    return this.leases.renewAll((key, _dfd, status) => { if (this.hosts.silent(key, status, now)) this.deps.wake?.(key); });
  }

  private withdraw(app: string): void {
    this.withdrawnAt.set(app, Date.now());
    this.deps.agent.withdraw(app);
  }

  /** DEL to every host, then DONE once all answered DEL_ACK or the timeout passed; then the finalizer goes. */
  private async release(key: string, dfd: DroneFederatedDeployment, log: Logger): Promise<ReconcileResult> {
    const finalizers = dfd.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return {};
    const status = dfd.status ?? {};
    if (status.phase === 'DONE') {
      await this.deps.api.setFinalizers('DroneFederatedDeployment', dfd, finalizers.filter((f) => f !== FINALIZER));
      this.forget(key);
      return {};
    }
    const now = Date.now();
    const apps = new Set([...(status.components ?? []).flatMap((c) => (c.app === undefined ? [] : [c.app])), ...(status.app === undefined ? [] : [status.app])]);
    for (const app of apps) if (now - (this.withdrawnAt.get(app) ?? 0) >= 2_000) this.withdraw(app);
    const pending = this.unreleased(key, status);
    const deadline = new Date(dfd.metadata.deletionTimestamp ?? now).getTime() + this.deps.releaseTimeoutSeconds * 1000;
    if (pending.length > 0 && now < deadline) return { requeueAfterMs: 500 };
    const reason = pending.length === 0 ? 'released by every host' : `no DEL_ACK from ${pending.join(', ')} within ${this.deps.releaseTimeoutSeconds} s; their leases will expire`;
    log.info({ reason }, 'released');
    const components = (status.components ?? []).map((c) => ({ ...c, phase: 'RELEASED' as const }));
    await this.write(dfd, { ...status, phase: 'DONE', reason, components });
    return {};
  }

  /** Remote components whose host has not answered DEL_ACK yet, as "cluster (component)". */
  private unreleased(key: string, status: Status): string[] {
    const acked = this.delAcks.get(key) ?? new Set<string>();
    return (status.components ?? [])
      .filter((c) => c.cluster !== undefined && c.cluster !== this.deps.cluster && !acked.has(c.name))
      .map((c) => `${c.cluster ?? '?'} (${c.name})`);
  }

  private forget(key: string): void {
    for (const waiting of this.turns.forget(key)) this.deps.wake?.(waiting);
    this.objects.forget(key);
    this.delAcks.delete(key);
    this.hosts.forget(key);
    this.failedAt.delete(key);
    this.refusedSince.delete(key);
    this.refusals.delete(key);
    this.leases.forget(key);
    this.reclaims.forget(key);
    this.statuses.forget(key);
  }

  /** Every write, whatever the phase, records the `Moved` Events of the moves it shows. */
  private async write(dfd: DroneFederatedDeployment, wanted: Status): Promise<void> {
    await this.statuses.write(dfd, wanted, [...this.refusals.get(objectKey(dfd))?.values() ?? []]);
    await this.reclaims.written(objectKey(dfd), dfd, wanted);
  }
}
