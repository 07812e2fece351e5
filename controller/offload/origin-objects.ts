// The objects of a DroneFederatedDeployment's components on the offloading side: a component
// placed here runs as a Deployment and Service once its boot dependencies do; one placed on a
// neighbour gets its OffloadRequest, and callers here reach it under its own Service name (with
// an EndpointSlice for an IP). Applied only when changed here or moved in the cache.
import type { KubernetesObject, V1Service } from '@kubernetes/client-node';
import { objectKey } from '../../shared/kube/informer.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import { AppliedObjects } from '../applied.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../bundle/names.ts';
import { available, exposedAt, publicAddress } from './host-plan.ts';
import { dependencyEnv, localObjects, reachOf, remoteObjects } from './objects.ts';
import { localObservation, neededRemotely, readiness, serviceClash, type Observation, type Status } from './origin-plan.ts';
import type { OffloadRequest, OriginSideDeps } from './origin-reconciler.ts';
import { localDeploymentName, offloadRequestName, workloadOf, type DroneFederatedDeployment, type Workload } from './workload.ts';

export class OriginObjects {
  private readonly deps: OriginSideDeps;
  /** Called with `<deployment key>/<component>` when a component is newly assigned to a neighbour. */
  private readonly assigned: (component: string) => void;
  /** Local and remote-facing objects per component: written again only when changed here or moved there. */
  private readonly applied = new AppliedObjects();
  /** Deployments (at a generation) whose Service names were found free or theirs. */
  private readonly namesChecked = new Set<string>();

  /** Each OffloadRequest with the last host report written on it: the status written after a batch of reports says all of them, not what the cache has caught up with. */
  private readonly requests: (key: string) => OffloadRequest | undefined;

  constructor(deps: OriginSideDeps, assigned: (component: string) => void, requests: (key: string) => OffloadRequest | undefined) {
    this.deps = deps;
    this.assigned = assigned;
    this.requests = requests;
  }

  /** Starts what runs here, and keeps an OffloadRequest and a local Service for what runs elsewhere. */
  async run(dfd: DroneFederatedDeployment, status: Status): Promise<Map<string, Observation>> {
    const seen = new Map<string, Observation>();
    for (const c of status.components ?? []) {
      const spec = dfd.spec.components.find((s) => s.name === c.name);
      if (c.cluster === undefined || c.app === undefined || spec === undefined) continue;
      const workload = workloadOf(dfd.spec, spec);
      await this.dropFormer(dfd, c.name, c.cluster === this.deps.cluster);
      seen.set(c.name, c.cluster === this.deps.cluster ? await this.local(dfd, status, c.name, workload) : await this.remote(dfd, c.name, { cluster: c.cluster, app: c.app }, workload));
    }
    return seen;
  }

  /** A component that runs here, once its boot dependencies do; on a NodePort when a neighbour's component needs it. */
  private async local(dfd: DroneFederatedDeployment, status: Status, component: string, workload: Workload): Promise<Observation> {
    const namespace = dfd.metadata.namespace ?? '';
    const { launch, dependencies } = readiness(dfd, status, component);
    if (!launch) return { phase: 'SCHEDULED', message: 'waiting for its boot dependencies' };
    // a component without ports has nothing to reach: it is not waited for
    const exposed = workload.ports.length > 0 && neededRemotely(dfd, status, component, this.deps.cluster);
    const objects = localObjects(dfd, { component, workload, cluster: this.deps.cluster, env: dependencyEnv(dependencies), exposed });
    await this.applyOwned(`${objectKey(dfd)}/${component}`, objects.deployment);
    const service = await this.applyOwned(`${objectKey(dfd)}/${component}`, objects.service);
    const running = available(this.deps.workloads.get(`${namespace}/${localDeploymentName(dfd, component)}`));
    const at = exposed ? exposedAt(service, publicAddress(this.deps.publicAddress, this.deps.nodes.list())) ?? 'unreachable' : undefined;
    return localObservation({ component, namespace, running, ...(workload.ports[0] === undefined ? {} : { firstPort: workload.ports[0].port }), ...(at === undefined ? {} : { exposed: at }) });
  }

  private async remote(dfd: DroneFederatedDeployment, component: string, at: { cluster: string; app: string }, workload: Workload): Promise<Observation> {
    const namespace = dfd.metadata.namespace ?? '';
    const name = offloadRequestName(dfd, component);
    const request = this.requests(`${namespace}/${name}`);
    if (request === undefined || request.spec.app !== at.app || request.spec.cluster !== at.cluster) return this.assign(dfd, component, at, request);
    const s = request.status ?? {};
    // a host that reports one port (or an older one) is reached on the first declared port
    const reach = s.endpoint === undefined ? undefined : reachOf(s.endpoint, s.ports, workload.ports);
    if (reach !== undefined) {
      const objects = remoteObjects(dfd, { component, reach });
      await this.applyOwned(`${objectKey(dfd)}/${component}`, objects.service);
      if (objects.slice !== undefined) await this.applyOwned(`${objectKey(dfd)}/${component}`, objects.slice);
    }
    // before the host's first report it says what assign() said: a message that came and went was one more status write
    const message = s.phase === undefined ? `assigned to ${at.cluster}` : s.message;
    return { phase: s.phase ?? 'ASSIGNED', ...(reach === undefined ? {} : { endpoint: s.endpoint, ports: reach.ports }), ...(message === undefined || message === '' ? {} : { message }) };
  }

  /**
   * A component that moved (reclaim) between here and a neighbour: what it ran as where it was
   * goes. Moved here: its OffloadRequest and EndpointSlice; moved away: its Deployment and its
   * Service with a selector (the one without, for the neighbour, is made once the host reports).
   */
  private async dropFormer(dfd: DroneFederatedDeployment, component: string, here: boolean): Promise<void> {
    const namespace = dfd.metadata.namespace ?? '';
    if (here) {
      const request = offloadRequestName(dfd, component);
      if (this.deps.requests.get(`${namespace}/${request}`) !== undefined) await this.deps.api.remove('OffloadRequest', namespace, request);
      if (this.deps.slices.get(`${namespace}/${component}-remote`) !== undefined) await this.deps.api.remove('EndpointSlice', namespace, `${component}-remote`);
      return;
    }
    const deployment = localDeploymentName(dfd, component);
    if (this.deps.workloads.get(`${namespace}/${deployment}`) !== undefined) await this.deps.api.remove('Deployment', namespace, deployment);
    if (this.deps.services.get(`${namespace}/${component}`)?.spec?.selector !== undefined) await this.deps.api.remove('Service', namespace, component);
  }

  /** The OffloadRequest of a component newly placed on a neighbour: ASSIGNED (on the host's ACK). */
  private async assign(dfd: DroneFederatedDeployment, component: string, at: { cluster: string; app: string }, previous: OffloadRequest | undefined): Promise<Observation> {
    const namespace = dfd.metadata.namespace ?? '';
    const name = offloadRequestName(dfd, component);
    await this.deps.api.apply({
      apiVersion: API_VERSION, kind: 'OffloadRequest',
      metadata: { name, namespace, labels: { [LABEL_MANAGED_BY]: MANAGED_BY }, ownerReferences: [{ apiVersion: API_VERSION, kind: 'DroneFederatedDeployment', name: dfd.metadata.name ?? '', uid: dfd.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }] },
      spec: { deployment: dfd.metadata.name ?? '', component, app: at.app, cluster: at.cluster },
    });
    // a component that moved starts afresh: what the former host said no longer holds
    if (previous !== undefined) await this.deps.api.patchStatus('OffloadRequest', { metadata: { name, namespace } }, { phase: 'ASSIGNED', endpoint: null, ports: null, revision: null, message: `assigned to ${at.cluster}` });
    this.assigned(`${objectKey(dfd)}/${component}`);
    return { phase: 'ASSIGNED', message: `assigned to ${at.cluster}` };
  }

  /**
   * A component whose Service name someone else holds in the namespace (serviceClash). Asked of
   * the API once per generation: a Service edgeshifu did not make is not in the labelled cache.
   */
  async clash(key: string, dfd: DroneFederatedDeployment): Promise<string | undefined> {
    const generation = `${key}/${String(dfd.metadata.generation ?? 0)}`;
    if (this.namesChecked.has(generation)) return undefined;
    const namespace = dfd.metadata.namespace ?? '';
    for (const c of dfd.spec.components) {
      const existing = this.deps.services.get(`${namespace}/${c.name}`) ?? await this.deps.api.get<V1Service>('Service', namespace, c.name);
      const why = serviceClash(dfd, c.name, existing?.metadata);
      if (why !== undefined) return why;
    }
    this.namesChecked.add(generation);
    return undefined;
  }

  /** The cached copy of an object the origin applies. */
  private cached(object: KubernetesObject): KubernetesObject | undefined {
    const key = `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
    if (object.kind === 'Deployment') return this.deps.workloads.get(key);
    if (object.kind === 'Service') return this.deps.services.get(key);
    return object.kind === 'EndpointSlice' ? this.deps.slices.get(key) : undefined;
  }

  /** Server-side apply of what changed since this process last applied it, or moved in the cache; the object as the API has it. */
  private async applyOwned(owner: string, object: KubernetesObject): Promise<KubernetesObject | undefined> {
    const cached = this.cached(object);
    if (!this.applied.needs(owner, object, cached)) return cached;
    const stored = await this.deps.api.apply(object);
    this.applied.record(owner, object, stored);
    return stored;
  }

  /** Forgets what was applied and checked for a deployment that went away. */
  forget(key: string): void {
    this.applied.forgetUnder(`${key}/`);
    for (const k of [...this.namesChecked]) if (k.startsWith(`${key}/`)) this.namesChecked.delete(k);
  }
}
