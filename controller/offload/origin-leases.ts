// The origin's leases to its hosts (README, "Leases"): a component's full lease goes out when
// what it says changed (or a host said `stale`), and each renewal round names every lease a host
// holds in one message per host (lease-batch.ts), instead of one lease per component.
import type { Informer } from '../../shared/kube/informer.ts';
import type { DroneAgent } from '../drone/agent.ts';
import { olderHosts, renewalBatches } from './lease-batch.ts';
import { deploymentOfApp, launchGrantsFor, leasesFor, type LeaseBody, type Status } from './origin-plan.ts';
import type { DroneFederatedDeployment } from './workload.ts';

export interface OriginLeasesDeps {
  readonly agent: DroneAgent;
  readonly cluster: string;
  readonly deployments: Informer<DroneFederatedDeployment>;
  readonly leaseSeconds: number;
}

export class OriginLeases {
  private readonly deps: OriginLeasesDeps;
  /** What each component's last full lease said (`<key>/<component>`). */
  private readonly sent = new Map<string, string>();
  /** What each component's launch grant said, sent once (launch-grant.ts). */
  private readonly granted = new Map<string, string>();
  /** Per host, since when it is renewed, and when it last answered a renewal. */
  readonly renewingSince = new Map<string, number>();
  readonly answeredAt = new Map<string, number>();

  constructor(deps: OriginLeasesDeps) {
    this.deps = deps;
  }

  /** The full lease of every component whose lease changed since it was last sent, and each new launch grant. */
  send(key: string, dfd: DroneFederatedDeployment, status: Status): void {
    for (const grant of launchGrantsFor(dfd, status, this.deps.cluster)) {
      const id = `${key}/${grant.component}`;
      const said = JSON.stringify([grant.to, grant.app, grant.revision, grant.after]);
      if (this.granted.get(id) === said) continue;
      this.granted.set(id, said);
      this.deps.agent.send(grant);
    }
    for (const lease of leasesFor(dfd, status, this.deps.cluster, this.deps.leaseSeconds)) {
      const id = `${key}/${lease.component}`;
      const said = JSON.stringify([lease.to, lease.app, lease.revision, lease.launch, lease.dependencies, lease.dependencyPorts, lease.movable]);
      if (this.sent.get(id) === said) continue;
      this.sent.set(id, said);
      this.deps.agent.send(lease);
    }
  }

  /** A host holds other terms than the last full lease (it was lost on the way): sent again. */
  resend(app: string, component: string): void {
    const owner = deploymentOfApp(app);
    if (owner === undefined) return;
    const key = `${owner.namespace}/${owner.name}`;
    const dfd = this.deps.deployments.get(key);
    if (dfd?.status === undefined || dfd.metadata.deletionTimestamp !== undefined) return;
    this.sent.delete(`${key}/${component}`);
    this.send(key, dfd, dfd.status);
  }

  /** One renewal round: every lease of every deployment, one message per host; `each` sees each deployment. */
  renewAll(each: (key: string, dfd: DroneFederatedDeployment, status: Status) => void): number {
    const leases: LeaseBody[] = [];
    this.deps.deployments.forEach((dfd, key) => {
      if (dfd.metadata.deletionTimestamp !== undefined || dfd.status === undefined) return;
      leases.push(...leasesFor(dfd, dfd.status, this.deps.cluster, this.deps.leaseSeconds));
      each(key, dfd, dfd.status);
    });
    const batches = renewalBatches(leases, this.deps.leaseSeconds);
    const now = Date.now();
    for (const batch of batches) if (!this.renewingSince.has(batch.to)) this.renewingSince.set(batch.to, now);
    const older = new Set(olderHosts(new Set(batches.map((b) => b.to)), this, now, (this.deps.leaseSeconds * 1000) / 3));
    // the renewal still goes to them too: once upgraded, a host answers and leaves this set
    for (const lease of leases) if (older.has(lease.to)) this.deps.agent.send(lease);
    for (const batch of batches) this.deps.agent.send(batch);
    return batches.length;
  }

  /** A host answered a renewal: it takes them. */
  answered(host: string): void {
    this.answeredAt.set(host, Date.now());
  }

  forget(key: string): void {
    for (const k of [...this.sent.keys()]) if (k.startsWith(`${key}/`)) this.sent.delete(k);
    for (const k of [...this.granted.keys()]) if (k.startsWith(`${key}/`)) this.granted.delete(k);
  }
}
