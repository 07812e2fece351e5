// Wires DRONE offloading into the leader: the federation (broker, agent, relay), the
// resources daemon (free capacity from the Node and Pod caches), and two reconcilers on their
// own queues: DroneFederatedDeployments (offloading side) and HostRequests (hosting side).
import type { KubernetesListObject, KubernetesObject, V1Deployment, V1EndpointSlice, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { Informer, objectKey } from '../../shared/kube/informer.ts';
import { Backoff, sleep } from '../../shared/backoff.ts';
import type { Logger } from '../../shared/log.ts';
import type { Registry } from '../../shared/prometheus.ts';
import { busMetrics } from '../../shared/bus/metrics.ts';
import { Runner } from '../runner.ts';
import type { DroneEvent } from '../drone/agent-core.ts';
import type { OffloadMessage } from '../drone/agent.ts';
import { clusterFree } from '../drone/slicing/capacity.ts';
import { nodeInput, podInput } from '../drone/slicing/kube-input.ts';
import { DroneFederation, type FederationDeps } from './federation.ts';
import { imagePrefixes } from './admission.ts';
import { HostSide } from './host-reconciler.ts';
import { NewestPerKey } from './newest.ts';
import { collectionPath, OffloadApi, type OffloadKind } from './kube.ts';
import { LABEL_COMPONENT, LABEL_DEPLOYMENT, type HostRequest } from './objects.ts';
import { OriginSide, type OffloadRequest } from './origin-reconciler.ts';
import type { OffloadSettings } from './settings.ts';
import type { Topology } from '../topology.ts';
import { feedEdgeMap } from './edgemap-feed.ts';
import { renewalOnly } from './host-plan.ts';
import { renewedReports } from './lease-batch.ts';
import type { DroneFederatedDeployment } from './workload.ts';
import { errorMessage } from '../../shared/errors.ts';

export interface OffloaderDeps {
  readonly client: KubeClient;
  readonly settings: OffloadSettings & { droneCluster: string };
  readonly logger: Logger;
  readonly registry: Registry;
  /** The controller's own caches: capacity comes from them. */
  readonly nodes: Informer<V1Node>;
  readonly pods: Informer<V1Pod>;
  readonly workers?: number;
  /** The edgeMap's port: neighbours and offloaded components are shown there. */
  readonly topology?: Topology;
  /** Other protocols' message kinds on DRONE's connection (REAR's, when it runs). */
  readonly extraSchemas?: FederationDeps['extraSchemas'];
}

function informer<T extends KubernetesObject>(deps: OffloaderDeps, kind: OffloadKind, labelSelector?: string): Informer<T> {
  const path = collectionPath(kind);
  const query = labelSelector === undefined ? undefined : { labelSelector };
  return new Informer<T>({
    path, labelSelector, logger: deps.logger.child({ informer: kind }), watch: deps.client.watch,
    list: () => deps.client.request<KubernetesListObject<T>>('GET', path, { query }),
  });
}


/** Messages about one component, applied in order per component. */
type PerComponent = Extract<OffloadMessage, { kind: 'lease' | 'host-status' }>;

export class Offloader {
  readonly federation: DroneFederation;
  readonly origin: OriginSide;
  readonly host: HostSide;
  readonly deployments: Informer<DroneFederatedDeployment>;
  readonly offloadRequests: Informer<OffloadRequest>;
  readonly hostRequests: Informer<HostRequest>;
  private readonly workloads: Informer<V1Deployment>;
  private readonly services: Informer<V1Service>;
  private readonly slices: Informer<V1EndpointSlice>;
  private readonly originRunner: Runner;
  private readonly hostRunner: Runner;
  private readonly deps: OffloaderDeps;
  private readonly stopping = new AbortController();
  private renewTimer?: NodeJS.Timeout;
  private resourcesTimer?: NodeJS.Timeout;

  constructor(deps: OffloaderDeps) {
    this.deps = deps;
    const { settings, logger } = deps;
    const api = new OffloadApi(deps.client);
    this.federation = new DroneFederation({ client: deps.client, settings, logger: logger.child({ part: 'drone' }), free: this.free(), metrics: busMetrics(deps.registry), ...(deps.extraSchemas === undefined ? {} : { extraSchemas: deps.extraSchemas }) });
    this.deployments = informer(deps, 'DroneFederatedDeployment');
    this.offloadRequests = informer(deps, 'OffloadRequest');
    this.hostRequests = informer(deps, 'HostRequest');
    this.workloads = informer(deps, 'Deployment', LABEL_COMPONENT);
    this.services = informer(deps, 'Service', LABEL_COMPONENT);
    this.slices = informer(deps, 'EndpointSlice', LABEL_COMPONENT);
    const agent = this.federation.agent;
    this.origin = new OriginSide({
      api, agent, cluster: settings.droneCluster, deployments: this.deployments, requests: this.offloadRequests, workloads: this.workloads,
      services: this.services, slices: this.slices, nodes: deps.nodes,
      ...(settings.dronePublicAddress === undefined ? {} : { publicAddress: settings.dronePublicAddress }),
      leaseSeconds: settings.droneLeaseSeconds, releaseTimeoutSeconds: settings.droneReleaseTimeoutSeconds, retrySeconds: settings.droneRetrySeconds, logger,
      settled: () => this.federation.settled(),
      wake: (key) => { this.originRunner.queue.add(key); },
    });
    this.host = new HostSide({
      api, agent, cluster: settings.droneCluster, requests: this.hostRequests, deployments: this.workloads, services: this.services, nodes: deps.nodes,
      leaseSeconds: settings.droneLeaseSeconds, ...(settings.dronePublicAddress === undefined ? {} : { publicAddress: settings.dronePublicAddress }), logger,
      policyOf: (origin) => this.federation.hostingPolicy(origin), clusterImages: imagePrefixes(settings.droneAllowedImages),
    });
    const workers = deps.workers ?? 2;
    this.originRunner = new Runner({ name: 'dronefederateddeployment', reconcile: this.origin.reconcile, workers, logger, registry: deps.registry });
    this.hostRunner = new Runner({ name: 'hostrequest', reconcile: this.host.reconcile, workers, logger, registry: deps.registry });
  }

  get cluster(): string {
    return this.deps.settings.droneCluster;
  }

  /** What the cluster has free now (the resources daemon's figure). */
  free(): ReturnType<typeof clusterFree> {
    return clusterFree(this.deps.nodes.list().map(nodeInput), this.deps.pods.list().map(podInput));
  }

  async start(): Promise<void> {
    const caches = [this.deployments, this.offloadRequests, this.hostRequests, this.workloads, this.services, this.slices] as unknown as Array<Informer<KubernetesObject>>;
    await Promise.all(caches.map((i) => i.start()));
    this.wire();
    await this.federation.start();
    if (this.deps.topology !== undefined) feedEdgeMap(this.deps.topology, this.federation.federations, this.deployments, this.cluster);
    // the caches were empty when the agent was made; the first advert must say what is free now
    this.federation.agent.setResources(this.free());
    await this.host.restore();
    this.origin.restore();
    this.originRunner.start();
    this.hostRunner.start();
    for (const d of this.deployments.list()) this.originRunner.queue.add(objectKey(d));
    for (const r of this.hostRequests.list()) this.hostRunner.queue.add(objectKey(r));
    // every lease is renewed each lease/3, in one message per host (README, "Leases"); one lease
    // per component each round grew with the apps and went over a host's lease rate limit
    const round = Math.max(1, Math.floor(this.deps.settings.droneLeaseSeconds / 3));
    let tick = 0;
    this.renewTimer = setInterval(() => {
      if (tick % round === 0) this.guarded('renewal round', () => { this.origin.renewRound(); });
      tick += 1;
      for (const key of this.host.expiredKeys(Date.now())) this.hostRunner.queue.add(key);
    }, 1_000);
    this.renewTimer.unref();
  }

  private wire(): void {
    const agent = this.federation.agent;
    agent.on('decision', (event) => { this.onDecision(event); });
    agent.on('offload', (message) => { this.onMessage(message); });
    agent.on('refused', (event) => {
      const key = this.origin.onRefused(event);
      if (key !== undefined) this.originRunner.queue.add(key);
    });
    for (const event of ['add', 'update', 'delete'] as const) {
      this.deployments.on(event, (d) => { this.originRunner.queue.add(objectKey(d)); });
      this.offloadRequests.on(event, (r) => { this.originRunner.queue.add(`${r.metadata.namespace ?? ''}/${r.spec.deployment}`); });
      this.hostRequests.on(event, (r, _key, previous) => {
        if (event === 'delete') this.host.forget(r);
        if (event === 'update' && renewalOnly(previous, r)) return;
        this.hostRunner.queue.add(objectKey(r));
      });
      for (const cache of [this.workloads, this.services, this.slices] as Array<Informer<KubernetesObject>>) cache.on(event, (o) => { this.ownerChanged(o); });
      this.deps.nodes.on(event, () => { this.resourcesChanged(); });
      this.deps.pods.on(event, () => { this.resourcesChanged(); });
    }
  }

  /** A Deployment or Service of offloading changed: its deployment (origin) or HostRequest (host) looks again. */
  private ownerChanged(o: KubernetesObject): void {
    const namespace = o.metadata?.namespace ?? '';
    const deployment = o.metadata?.labels?.[LABEL_DEPLOYMENT];
    if (deployment !== undefined) this.originRunner.queue.add(`${namespace}/${deployment}`);
    const owner = o.metadata?.ownerReferences?.find((r) => r.kind === 'HostRequest');
    if (owner !== undefined) this.hostRunner.queue.add(`${namespace}/${owner.name}`);
  }

  /** The resources daemon: free capacity recomputed on node and pod changes, at most every 250 ms. */
  private resourcesChanged(): void {
    if (this.resourcesTimer !== undefined) return;
    this.resourcesTimer = setTimeout(() => {
      this.resourcesTimer = undefined;
      this.federation.agent.setResources(this.free());
    }, 250);
    this.resourcesTimer.unref();
  }

  private onDecision(event: DroneEvent): void {
    const self = this.cluster;
    if (event.type === 'host' || (event.type === 'release' && event.origin !== self)) {
      void this.retrying(`${event.type} ${event.app}/${typeof event.component === 'string' ? event.component : event.component.name}`, () => this.host.onDecision(event));
      return;
    }
    if (event.type === 'placed' || event.type === 'failed' || event.type === 'acknowledged' || event.type === 'moved') {
      const key = event.type === 'acknowledged' ? this.origin.onAck(event) : event.type === 'moved' ? this.origin.reclaims.moved(event) : this.origin.onDecision(event);
      if (key !== undefined) this.originRunner.queue.add(key);
    }
  }

  /** Leases and host reports about one component, applied in order, the newest last. */
  private readonly inbox = new NewestPerKey<PerComponent>((message, superseded) => this.receive(message, superseded));

  private onMessage(message: OffloadMessage): void {
    if (message.kind === 'lease-renewal') {
      // renewed in memory and answered at once: nothing to write, nothing to order
      this.guarded(`lease renewal from ${message.sender}`, () => { for (const key of this.host.onRenewal(message)) this.hostRunner.queue.add(key); });
      return;
    }
    if (message.kind === 'launch-grant') {
      void this.retrying(`launch grant ${message.app}/${message.component}`, async () => {
        const key = await this.host.onGrant(message);
        if (key !== undefined) this.hostRunner.queue.add(key);
      });
      return;
    }
    if (message.kind === 'lease-renewed') {
      this.origin.leases.answered(message.sender);
      const { stale, reports } = renewedReports(message);
      this.guarded(`stale leases on ${message.sender}`, () => { for (const s of stale) this.origin.leases.resend(s.app, s.component); });
      for (const report of reports) this.offer(report);
      return;
    }
    this.offer(message);
  }

  private offer(message: PerComponent): void {
    this.inbox.offer(`${message.kind}/${message.sender}/${message.app}/${message.component}`, message);
  }

  /** A step on a bus event that cannot be retried (the bus is down): the next round does it again. */
  private guarded(what: string, step: () => void): void {
    try {
      step();
    } catch (err) {
      this.deps.logger.warn({ what, err: errorMessage(err) }, 'not done; the next round tries again');
    }
  }

  private receive(message: PerComponent, superseded: () => boolean): Promise<void> {
    if (message.kind === 'lease') {
      return this.retrying(`lease ${message.app}/${message.component}`, async () => {
        const key = await this.host.onLease(message);
        if (key !== undefined) this.hostRunner.queue.add(key);
      }, { attempts: 3, superseded });
    }
    return this.retrying(`host-status ${message.app}/${message.component}`, async () => {
      const key = await this.origin.onHostStatus(message);
      if (key !== undefined) this.originRunner.queue.add(key);
    }, { attempts: 3, superseded });
  }

  /** Writes that follow a bus event are retried with backoff: the event will not come again. */
  private async retrying(what: string, step: () => Promise<void>, options: { attempts?: number; superseded?: () => boolean } = {}): Promise<void> {
    const { attempts = 8, superseded = () => false } = options;
    const backoff = new Backoff({ initialMs: 200, maxMs: 5_000 });
    for (let i = 1; ; i += 1) {
      try {
        await step();
        return;
      } catch (err) {
        const message = errorMessage(err);
        // a newer message about the same component is waiting: it replaces this one
        if (superseded()) return;
        if (i >= attempts || this.stopping.signal.aborted) {
          this.deps.logger.warn({ what, err: message }, 'gave up; leases and reconciles will converge');
          return;
        }
        this.deps.logger.debug({ what, err: message, attempt: i }, 'retrying');
        await sleep(backoff.next(), this.stopping.signal).catch(() => undefined);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.renewTimer !== undefined) clearInterval(this.renewTimer);
    if (this.resourcesTimer !== undefined) clearTimeout(this.resourcesTimer);
    await this.originRunner.stop();
    await this.hostRunner.stop();
    await this.federation.stop();
    const caches = [this.deployments, this.offloadRequests, this.hostRequests, this.workloads, this.services, this.slices] as unknown as Array<Informer<KubernetesObject>>;
    await Promise.all(caches.map((i) => i.stop()));
  }
}
