// What the offloading side knows of the hosts of its remote components: their reports, kept on
// each component's OffloadRequest; when each was last heard from; which components are lost (the
// host said so, or went silent past the lease with its slice adverts stopped); and which hosts
// are left out of a deployment's next auctions for a while.
import type { ComponentStatus, OffloadRequestStatus } from '../../shared/crds/drone.ts';
import type { HostStatusMessage } from '../drone/messages/index.ts';
import { isoTime } from '../../shared/time.ts';
import { sameJson } from '../status.ts';
import { deploymentOfApp, type Status } from './origin-plan.ts';
import type { OffloadRequest, OriginSideDeps } from './origin-reconciler.ts';
import { offloadRequestName, type DroneFederatedDeployment } from './workload.ts';
import { LatestWrites } from './latest.ts';

const HOST_PHASE: Readonly<Record<HostStatusMessage['phase'], NonNullable<OffloadRequestStatus['phase']>>> = {
  ACCEPTED: 'ACCEPTED', SCHEDULED: 'SCHEDULED', CONNECTED: 'CONNECTED', LAUNCHED: 'LAUNCHED', FAILED: 'FAILED', GONE: 'FAILED',
};

/** A host's report as the OffloadRequest's status. */
function reportOf(msg: HostStatusMessage): OffloadRequestStatus {
  return {
    phase: HOST_PHASE[msg.phase], lastHeardTime: isoTime(Date.now()),
    ...(msg.endpoint === undefined ? {} : { endpoint: msg.endpoint }),
    ...(msg.ports === undefined ? {} : { ports: msg.ports }),
    ...(msg.revision === undefined ? {} : { revision: msg.revision }),
    message: msg.phase === 'GONE' ? `host lost it: ${msg.reason ?? ''}` : (msg.reason ?? ''),
  };
}

export class OriginHosts {
  private readonly deps: OriginSideDeps;
  /** Last word from the host of each remote component (`<key>/<component>`), for loss detection. */
  private readonly heard = new Map<string, number>();
  /** Reports being applied per deployment, and deployments whose status write waits for them. */
  private readonly reporting = new Map<string, number>();
  private readonly deferred = new Set<string>();
  /** Hosts left out of a deployment's next auctions (refused or lost it), until when. */
  private readonly excluded = new Map<string, Map<string, number>>();

  /** Each OffloadRequest's last status write until the cache shows it: the next report is written over it, not over the older cached copy (a 409). */
  private readonly latest: LatestWrites<OffloadRequest>;

  constructor(deps: OriginSideDeps) {
    this.deps = deps;
    this.latest = new LatestWrites(deps.requests);
  }

  /** The host of `<key>/<component>` was heard from (or the component was just assigned to it). */
  heardFrom(component: string): void {
    this.heard.set(component, Date.now());
  }

  /**
   * A host's report on one component: kept on its OffloadRequest; the deployment's key, or
   * undefined for a stale report. While reports on a deployment's components are being applied,
   * its status waits (defer()): written once for the batch, once the last of them is kept.
   */
  async report(msg: HostStatusMessage): Promise<string | undefined> {
    const owner = deploymentOfApp(msg.app);
    if (owner === undefined) return undefined;
    const key = `${owner.namespace}/${owner.name}`;
    this.reporting.set(key, (this.reporting.get(key) ?? 0) + 1);
    try {
      return await this.keep(key, owner.namespace, msg);
    } finally {
      const left = (this.reporting.get(key) ?? 1) - 1;
      if (left > 0) this.reporting.set(key, left);
      else {
        this.reporting.delete(key);
        if (this.deferred.delete(key)) this.deps.wake?.(key);
      }
    }
  }

  /** An OffloadRequest (`<namespace>/<name>`) with this process's last report on it, though the cache may not show it yet. */
  request(key: string): OffloadRequest | undefined {
    return this.latest.get(key);
  }

  /** Whether a report on one of the deployment's components is being applied: its status is written after it (report()), not now. */
  defer(key: string): boolean {
    if (!this.reporting.has(key)) return false;
    this.deferred.add(key);
    return true;
  }

  private async keep(key: string, namespace: string, msg: HostStatusMessage): Promise<string | undefined> {
    const owner = { namespace };
    const dfd = this.deps.deployments.get(key);
    if (dfd === undefined) return undefined;
    const name = offloadRequestName(dfd, msg.component);
    const fromHost = (r: OffloadRequest | undefined): r is OffloadRequest => r !== undefined && r.spec.app === msg.app && r.spec.cluster === msg.sender;
    let request = this.latest.get(`${owner.namespace}/${name}`);
    // the cache may lag a request written a moment ago: the API has the last word
    if (!fromHost(request)) request = await this.deps.api.get<OffloadRequest>('OffloadRequest', owner.namespace, name);
    // a report from a host this component has left (re-placed since) is stale
    if (!fromHost(request)) return undefined;
    this.heard.set(`${key}/${msg.component}`, Date.now());
    const status = reportOf(msg);
    const held = request.status ?? {};
    const samePorts = sameJson(held.ports, status.ports);
    if (held.phase !== status.phase || held.endpoint !== status.endpoint || !samePorts || held.revision !== status.revision || held.message !== status.message) {
      // ports a host no longer reports (a component down to one port) are dropped, not merged
      this.latest.wrote(`${owner.namespace}/${name}`, request, await this.deps.api.patchStatus('OffloadRequest', request, { ports: null, ...status }));
      return key;
    }
    // a report that changes nothing (the answer to a renewal) only says the host is alive: the
    // deployment is not reconciled for it (README, "Scale")
    return undefined;
  }

  /** Whether a remote component of the deployment has not been heard from for a lease: it is looked at (lost()). */
  silent(key: string, status: Status, now: number): boolean {
    return (status.components ?? []).some((c) => {
      if (c.cluster === undefined || c.cluster === this.deps.cluster) return false;
      const heard = this.heard.get(`${key}/${c.name}`);
      return heard !== undefined && now - heard > this.deps.leaseSeconds * 1000;
    });
  }

  /** Remote components whose host said it lost them, or went silent past the lease. */
  lost(key: string, status: Status): Map<string, string> {
    const lost = new Map<string, string>();
    const dfd = this.deps.deployments.get(key);
    if (dfd === undefined) return lost;
    const placed = (status.components ?? []).filter((c): c is ComponentStatus & { cluster: string } => c.cluster !== undefined);
    const deadHosts = new Map<string, string>();
    for (const c of placed) {
      const why = this.lossOf(key, dfd, c, Date.now());
      if (why === undefined) continue;
      lost.set(c.name, why);
      if (why.includes('slice adverts stopped')) deadHosts.set(c.cluster, why);
    }
    // a host that is gone takes all its components with it: one auction for them, not one each
    for (const c of placed) {
      const why = deadHosts.get(c.cluster);
      if (why !== undefined && !lost.has(c.name)) lost.set(c.name, why);
    }
    for (const c of placed) if (lost.has(c.name)) this.exclude(key, c.cluster, c.name);
    return lost;
  }

  private lossOf(key: string, dfd: DroneFederatedDeployment, c: ComponentStatus, now: number): string | undefined {
    if (c.cluster === undefined || c.cluster === this.deps.cluster) return undefined;
    const request = this.latest.get(`${dfd.metadata.namespace ?? ''}/${offloadRequestName(dfd, c.name)}`);
    const current = request !== undefined && request.spec.app === c.app && request.spec.cluster === c.cluster;
    const heardKey = `${key}/${c.name}`;
    if (!this.heard.has(heardKey)) this.heard.set(heardKey, now);
    const silentMs = now - (this.heard.get(heardKey) ?? now);
    if (current && request.status?.phase === 'FAILED') return `${c.cluster} could not run ${c.name}: ${request.status.message ?? ''}`;
    // silence alone may be a busy host: it is lost when its slice adverts stopped too
    if (silentMs > this.deps.leaseSeconds * 1000 && !this.deps.agent.providers().includes(c.cluster)) return `${c.cluster} has not answered for ${Math.round(silentMs / 1000)} s and its slice adverts stopped`;
    return undefined;
  }

  /**
   * A host is left out for a while, not for good: long enough for its slice advert to expire if
   * it is gone, short enough that a host that came back (or a lone neighbour) is asked again.
   */
  exclude(key: string, cluster: string, component?: string): void {
    const excluded = this.excluded.get(key) ?? new Map<string, number>();
    excluded.set(cluster, Date.now() + Math.max(this.deps.leaseSeconds, 2 * this.deps.retrySeconds) * 1000);
    this.excluded.set(key, excluded);
    if (component !== undefined) this.heard.delete(`${key}/${component}`);
  }

  excludedFrom(key: string): string[] {
    const now = Date.now();
    return [...(this.excluded.get(key) ?? new Map<string, number>())].filter(([, until]) => until > now).map(([cluster]) => cluster);
  }

  forget(key: string): void {
    this.excluded.delete(key);
    for (const k of [...this.heard.keys()]) if (k.startsWith(`${key}/`)) this.heard.delete(k);
    this.latest.sweep();
  }
}
