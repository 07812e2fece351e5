// The hosting side of offloading (DRONE v2 steps 14–29): an accepted OffloadRequest
// becomes a HostRequest in the origin's namespace; leases from the origin renew it and say what
// to run and when; reconcile runs it within the reserved slice and tells the origin where it
// stands; a release, a deletion or an expired lease frees the slice for the next advert.
import type { V1Deployment, V1Node, V1Service } from '@kubernetes/client-node';
import { objectKey, type Informer } from '../../shared/kube/informer.ts';
import { EdgeshifuError, errorMessage } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import type { HostRequestStatus } from '../../shared/crds/drone.ts';
import type { DroneAgent } from '../drone/agent.ts';
import type { DroneEvent } from '../drone/agent-core.ts';
import type { LaunchGrantMessage, LeaseMessage, LeaseRenewalMessage } from '../drone/messages/index.ts';
import type { ReconcileResult } from '../runner.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../bundle/names.ts';
import { HOSTED_FOR_LABEL } from '../drone/slicing/kube-input.ts';
import { reservedFor } from '../drone/host-ledger.ts';
import type { OffloadApi } from './kube.ts';
import { dependencyClash, dependencyObjects, hostObjects, type HostRequest } from './objects.ts';
import { hostVerdict, leaseEnd, leasedSpec, publicAddress, type HostStatusBody } from './host-plan.ts';
import { hostedNames, revisionOf, type Workload } from './workload.ts';
import { admitted, type HostingPolicy } from './admission.ts';
import { HostedGuard, reservationAnnotations, reservedOf } from './hosted-guard.ts';
import type { PodSecurityLevel } from './pod-security.ts';
import { sameJson } from '../status.ts';
import { HostRenewals } from './host-renewals.ts';
import { LaunchGrants } from './launch-grants.ts';
import { HostMaking } from './host-making.ts';
import { LatestWrites } from './latest.ts';

export interface HostSideDeps {
  readonly api: OffloadApi;
  readonly agent: DroneAgent;
  readonly cluster: string;
  readonly requests: Informer<HostRequest>;
  readonly deployments: Informer<V1Deployment>;
  readonly services: Informer<V1Service>;
  readonly nodes: Informer<V1Node>;
  readonly leaseSeconds: number;
  readonly publicAddress?: string;
  readonly logger: Logger;
  /** What this cluster runs for a neighbour (its Federation); undefined: nothing. */
  readonly policyOf: (origin: string) => HostingPolicy | undefined;
  /** Image prefixes this cluster runs for any neighbour (none: no cluster-wide bound). */
  readonly clusterImages: readonly string[];
}

type HostEvent = Extract<DroneEvent, { type: 'host' | 'release' }>;
const APPLIED = 'drone.edgeshifu.io/applied';

export class HostSide {
  private readonly deps: HostSideDeps;
  /** What was last told to each origin, so a status goes out on change; an unchanged lease gets it again. */
  private readonly told = new Map<string, { said: string; body: HostStatusBody }>();
  /** Renewals heard, and stored once per origin (host-renewals.ts). */
  private readonly renewals: HostRenewals;
  private readonly guard: HostedGuard;
  private readonly grants: LaunchGrants;
  /** HostRequests being made on an ACK (host-making.ts), and each one's last write until the cache has it (latest.ts). */
  private readonly making: HostMaking;
  private readonly latest: LatestWrites<HostRequest>;

  constructor(deps: HostSideDeps) {
    this.deps = deps;
    this.guard = new HostedGuard({ api: deps.api, requests: deps.requests, policyOf: deps.policyOf, reservedOf });
    this.renewals = new HostRenewals(deps);
    this.grants = new LaunchGrants(deps);
    this.making = new HostMaking({ api: deps.api, guard: this.guard, logger: deps.logger });
    this.latest = new LatestWrites(deps.requests);
  }

  /** The ledger after a restart: every HostRequest still here is a slice still held, renewed when its origin last was. */
  async restore(): Promise<void> {
    await this.renewals.restore(Date.now());
    const entries = this.deps.requests.list().map((r) => ({
      origin: r.spec.origin, app: r.spec.app, component: r.spec.component, requestId: r.spec.requestId,
      resources: reservedOf(r),
      acceptedAt: new Date(r.metadata.creationTimestamp ?? Date.now()).getTime(),
    }));
    if (entries.length > 0) this.deps.agent.restoreHosted(entries);
  }

  /** The agent accepted (ACK) or released a component: the HostRequest follows. */
  async onDecision(event: HostEvent): Promise<void> {
    const names = hostedNames(event.origin, event.app, event.type === 'host' ? event.component.name : event.component);
    if (event.type === 'release') {
      this.deps.logger.info({ origin: event.origin, app: event.app, component: event.component, reason: event.reason }, 'hosted component released');
      await this.deps.api.remove('HostRequest', names.namespace, names.name);
      return;
    }
    const { component, origin, app } = event;
    const entry = this.deps.agent.hosted().find((e) => e.origin === origin && e.app === app && e.component === component.name);
    const reserved = entry?.resources ?? reservedFor(component.resources);
    const metadata = { name: names.name, namespace: names.namespace, labels: { [LABEL_MANAGED_BY]: MANAGED_BY, [HOSTED_FOR_LABEL]: origin }, annotations: reservationAnnotations(reserved) };
    await this.making.make({ metadata, spec: {
      origin, app, component: component.name, requestId: entry?.requestId ?? `${app}.${component.name}`,
      resources: { cpu: `${component.resources.cpu}m`, memory: `${component.resources.memory}Mi` },
      ...(component.workload === undefined ? {} : { workload: component.workload as Record<string, unknown>, revision: revisionOf(component.workload as Workload) }),
      launch: false, leaseSeconds: this.deps.leaseSeconds,
    } }, reserved);
  }

  /** The origin lets a component start on its dependencies' LAUNCHED here (launch-grants.ts): the key to reconcile once it did. */
  async onGrant(msg: LaunchGrantMessage): Promise<string | undefined> {
    return this.grants.hold(msg);
  }

  /** A lease from the origin: renew, take what it says to run (a standing grant's go included), and answer where the component stands. */
  async onLease(lease: LeaseMessage): Promise<string | undefined> {
    const msg = this.grants.leased(lease);
    const request = await this.requestFor(msg);
    if (request === undefined) return undefined;
    const wanted = leasedSpec(msg, request.spec);
    const key = objectKey(request);
    if (wanted !== undefined) this.latest.wrote(key, request, await this.deps.api.patchLatest('HostRequest', request, { spec: wanted }));
    this.renewals.renew(msg.sender, [key], Date.now());
    const told = this.told.get(key);
    // a plain renewal: answered with the last status, not reconciled (README, "Scale")
    if (wanted === undefined && told !== undefined) {
      this.send(msg.sender, msg.app, msg.component, told.body);
      return undefined;
    }
    this.told.delete(key);
    return key;
  }

  /** A renewal of every lease the origin holds here, answered at once; the keys to reconcile (not reported yet). */
  onRenewal(msg: LeaseRenewalMessage): string[] {
    return this.renewals.answer(msg, (key) => this.told.get(key)?.body);
  }

  /**
   * The HostRequest a lease is about. The cache may not hold one created a moment ago (the
   * lease often follows the ACK within milliseconds), so a miss is asked of the API before the
   * lease is answered GONE or its content dropped.
   */
  private async requestFor(msg: LeaseMessage): Promise<HostRequest | undefined> {
    const names = hostedNames(msg.sender, msg.app, msg.component);
    const key = `${names.namespace}/${names.name}`;
    const cached = this.latest.get(key);
    if (cached !== undefined) return cached;
    // being made (the lease overtook the ACK's creation): wait for it, not make it again
    const made = await this.making.made(key);
    const found = this.latest.get(key) ?? made ?? await this.deps.api.get<HostRequest>('HostRequest', names.namespace, names.name);
    if (found !== undefined) return found;
    const entry = this.deps.agent.hosted().find((e) => e.origin === msg.sender && e.app === msg.app && e.component === msg.component);
    if (entry === undefined) {
      // not (or no longer) here: say so, and the origin puts the component to auction again
      this.send(msg.sender, msg.app, msg.component, { phase: 'GONE', reason: `${this.deps.cluster} does not host ${msg.component} of ${msg.app}` });
      return undefined;
    }
    // held but without its HostRequest (its creation failed for good): made again, then the lease applies
    await this.onDecision({ type: 'host', origin: msg.sender, app: msg.app, component: { name: msg.component, image: '-', resources: entry.resources, workload: msg.workload } });
    return this.deps.api.get<HostRequest>('HostRequest', names.namespace, names.name);
  }

  reconcile = async (key: string, log: Logger): Promise<ReconcileResult> => {
    const request = this.deps.requests.get(key);
    if (request === undefined) return this.gone(key);
    const { spec } = request;
    const names = { namespace: request.metadata.namespace ?? '', name: request.metadata.name ?? '' };
    const verdict0 = hostVerdict({ request, now: Date.now(), renewedAt: this.renewals.at(key) });
    if (verdict0.expired) {
      log.warn({ origin: spec.origin, app: spec.app, component: spec.component, reason: verdict0.reason }, 'lease expired: releasing the hosted component');
      await this.deps.api.remove('HostRequest', names.namespace, names.name);
      this.deps.agent.releaseHosted(spec.origin, spec.app, spec.component);
      return {};
    }
    const admission = admitted(request, this.deps);
    if ('refused' in admission) {
      await this.report(request, { phase: 'FAILED', message: admission.refused });
      return {}; // looked at again when its lease ends (expiredKeys)
    }
    const { workload, policy } = admission;
    await this.guard.ensure(spec.origin);
    const launched = await this.launch(request, workload, { ...names, level: policy?.level ?? 'restricted' });
    if (launched.refused !== undefined) {
      await this.report(request, { phase: 'FAILED', message: launched.refused });
      return {};
    }
    if (launched.created) {
      // DRONE v2's SCHEDULED is seen before the Service is known reachable
      await this.report(request, { phase: 'SCHEDULED', message: 'Deployment created; waiting for its pods' });
      return { requeueAfterMs: 200 };
    }
    const { deployment, service } = launched;
    const address = publicAddress(this.deps.publicAddress, this.deps.nodes.list());
    const verdict = hostVerdict({ request, deployment, service, address, now: Date.now(), renewedAt: this.renewals.at(key) });
    if (verdict.expired) return { requeueAfterMs: 0 };
    await this.report(request, {
      phase: verdict.phase, message: verdict.message,
      ...(verdict.endpoint === undefined ? {} : { endpoint: verdict.endpoint }),
      ...(verdict.ports === undefined ? {} : { ports: verdict.ports }),
      ...(verdict.phase === 'LAUNCHED' && spec.revision !== undefined ? { revision: spec.revision } : {}),
    });
    return {}; // not periodic: changed leases, the caches and expiredKeys wake it
  };

  /** HostRequests whose lease ended (renewals are held in memory): the sweep reconciles only these. */
  expiredKeys(now: number): string[] {
    const keys: string[] = [];
    this.deps.requests.forEach((request, key) => { if (now > leaseEnd(request, this.renewals.at(key))) keys.push(key); });
    return keys;
  }

  /** A HostRequest that went: the slice it held leaves the namespace's quota. */
  private async gone(key: string): Promise<ReconcileResult> {
    this.told.delete(key);
    this.latest.sweep();
    this.grants.forgetGone(key, this.deps.agent.hosted());
    this.renewals.forget(key);
    const origin = /^drone-(.+)\//.exec(key)?.[1];
    if (origin !== undefined) await this.guard.ensure(origin);
    return {};
  }

  /**
   * Once the origin said go: the Services of what it depends on first (it finds them under their
   * names from its first start), then its Deployment and Service; applied when what to run
   * changed, or one of them went missing.
   */
  private async launch(request: HostRequest, workload: Workload, names: { namespace: string; name: string; level: PodSecurityLevel }): Promise<{ deployment?: V1Deployment; service?: V1Service; created: boolean; refused?: string }> {
    const key = `${names.namespace}/${names.name}`;
    const deployment = this.deps.deployments.get(key);
    const service = this.deps.services.get(key);
    if (request.spec.launch !== true) return { deployment, service, created: false };
    const { dependencies = {}, dependencyPorts = {} } = request.spec;
    const applied = `${request.spec.revision ?? ''}/${JSON.stringify(dependencies)}/${JSON.stringify(dependencyPorts)}/${names.level}`;
    const depsHere = Object.keys(dependencyPorts).every((d) => this.deps.services.get(`${names.namespace}/${d}`) !== undefined);
    if (deployment?.metadata?.annotations?.[APPLIED] === applied && service !== undefined && depsHere) return { deployment, service, created: false };
    const refused = await this.connectDependencies(request);
    if (refused !== undefined) return { deployment, service, created: false, refused };
    const objects = hostObjects(request, workload, this.deps.cluster, { ...names, annotations: { [APPLIED]: applied } });
    // side by side: neither needs the other, and one after the other they were two round trips on every start
    const [made, exposed] = await Promise.all([this.deps.api.apply(objects.deployment), this.deps.api.apply(objects.service)]);
    return { deployment: made, service: exposed, created: deployment === undefined };
  }

  /** A Service (and EndpointSlice) per dependency, named as it; why not, when the name is someone else's. */
  private async connectDependencies(request: HostRequest): Promise<string | undefined> {
    const namespace = request.metadata.namespace ?? '';
    const sharers = this.deps.requests.list().filter((r) => r.metadata.namespace === namespace);
    for (const objects of dependencyObjects(request, sharers)) {
      const name = objects.service.metadata?.name ?? '';
      // a Service edgeshifu did not label is not in the cache: the API has the last word
      const existing = this.deps.services.get(`${namespace}/${name}`) ?? await this.deps.api.get<V1Service>('Service', namespace, name);
      const clash = dependencyClash(request, name, existing?.metadata);
      if (clash !== undefined) return clash;
      await Promise.all([this.deps.api.apply(objects.service), ...(objects.slice === undefined ? [] : [this.deps.api.apply(objects.slice)])]);
    }
    return undefined;
  }

  /** A HostRequest went away (deleted by hand, expired or released): its slice is free again. */
  forget(request: HostRequest): void {
    this.deps.logger.info({ origin: request.spec.origin, app: request.spec.app, component: request.spec.component }, 'HostRequest gone: its slice is free');
    this.deps.agent.releaseHosted(request.spec.origin, request.spec.app, request.spec.component);
    this.send(request.spec.origin, request.spec.app, request.spec.component, { phase: 'GONE', reason: `${this.deps.cluster} no longer hosts it` });
  }

  /** Status written and told; once launched, reclaim no longer offers it unless its deployment lets it move (the lease's movable). */
  private async report(request: HostRequest, status: HostRequestStatus & { phase: NonNullable<HostRequestStatus['phase']> }): Promise<void> {
    const previous = request.status ?? {};
    const changed = previous.phase !== status.phase || previous.endpoint !== status.endpoint || previous.message !== status.message
      || !sameJson(previous.ports, status.ports)
      || (status.revision !== undefined && previous.revision !== status.revision);
    // only this controller writes its status, field by field: no resourceVersion guard (a renewal in between is no conflict); unreported ports go
    if (changed) this.latest.wrote(objectKey(request), request, await this.deps.api.patchStatus('HostRequest', { metadata: { name: request.metadata.name, namespace: request.metadata.namespace } } as HostRequest, { ports: null, ...status }));
    this.tell(request, status);
    if (status.phase === 'LAUNCHED') this.deps.agent.launched({ origin: request.spec.origin, app: request.spec.app, component: request.spec.component, movable: request.spec.movable === true });
    await this.grants.reported(objectKey(request), status);
  }

  /** The origin hears of every change; ADD_ACK when first launched, MOD_ACK when a new revision is. */
  private tell(request: HostRequest, status: HostRequestStatus & { phase: NonNullable<HostRequestStatus['phase']> }): void {
    const previous = request.status ?? {};
    const { origin, app, component } = request.spec;
    const revision = status.revision ?? previous.revision;
    const said = JSON.stringify([status.phase, status.endpoint, status.ports, revision]);
    if (this.told.get(objectKey(request))?.said === said) return;
    const body: HostStatusBody = {
      phase: status.phase, ...(status.endpoint === undefined ? {} : { endpoint: status.endpoint }),
      // one port is the endpoint's: said without the field an older origin would refuse
      ...(status.ports === undefined || status.ports.length < 2 ? {} : { ports: status.ports }),
      ...(revision === undefined ? {} : { revision }), ...(status.phase === 'FAILED' ? { reason: status.message ?? 'failed' } : {}),
    };
    this.told.set(objectKey(request), { said, body });
    this.send(origin, app, component, body);
    if (status.phase === 'LAUNCHED' && status.revision !== undefined && previous.revision !== status.revision) {
      this.deps.agent.send({ kind: 'acknowledge', to: origin, typeAck: previous.revision === undefined ? 'ADD_ACK' : 'MOD_ACK', app, component });
    }
  }

  private send(to: string, app: string, component: string, body: HostStatusBody): void {
    try {
      this.deps.agent.send({ kind: 'host-status', to, app, component, ...body });
    } catch (err) {
      throw new EdgeshifuError('unavailable', `cannot tell ${to} about ${component}: ${errorMessage(err)}`);
    }
  }
}
