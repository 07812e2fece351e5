// Boot dependencies on one host (README.md, "Boot dependencies on one host"): the origin's
// launch-grant lets this host start a component once the dependencies it hosts for the same
// origin are LAUNCHED here, with the terms the origin's lease would say (each dependency's
// endpoint and ports as this host reports them), so the lease that says go, when it comes, changes
// nothing. A lease that says wait while the grant still holds (sent before the origin heard of the
// LAUNCHED) is read as go; a lease that says go ends the grant: the origin has the word again.
import type { ReachablePort } from '../../shared/crds/drone.ts';
import type { Informer } from '../../shared/kube/informer.ts';
import type { LaunchGrantMessage, LeaseMessage } from '../drone/messages/index.ts';
import type { OffloadApi } from './kube.ts';
import type { HostRequest } from './objects.ts';
import { hostedNames } from './workload.ts';

/** What a lease's go says: the terms a granted launch writes. */
export interface LaunchTerms {
  readonly launch: true;
  readonly dependencies: Record<string, string>;
  readonly dependencyPorts: Record<string, ReachablePort[]>;
}

/** Where a component LAUNCHED here is reached, as this host reported it. */
interface Launched {
  readonly endpoint?: string;
  readonly ports?: readonly ReachablePort[];
}

export function hostedKey(origin: string, app: string, component: string): string {
  const names = hostedNames(origin, app, component);
  return `${names.namespace}/${names.name}`;
}

/**
 * The terms a grant allows (pure): every dependency LAUNCHED here, for a HostRequest of the
 * grant's revision; as the origin's readiness() says them (a dependency without an endpoint is
 * not named; ports only when there are some).
 */
export function grantedTerms(grant: LaunchGrantMessage, revision: string | undefined, launched: (key: string) => Launched | undefined): LaunchTerms | undefined {
  if (revision !== grant.revision) return undefined;
  const dependencies: Record<string, string> = {};
  const dependencyPorts: Record<string, ReachablePort[]> = {};
  for (const dep of grant.after) {
    const here = launched(hostedKey(grant.sender, dep.app, dep.component));
    if (here === undefined) return undefined;
    if (here.endpoint === undefined) continue;
    dependencies[dep.component] = here.endpoint;
    if (here.ports !== undefined && here.ports.length > 0) dependencyPorts[dep.component] = [...here.ports];
  }
  return { launch: true, dependencies, dependencyPorts };
}

export class LaunchGrants {
  private readonly deps: { readonly api: OffloadApi; readonly requests: Informer<HostRequest> };
  /** Grants by the HostRequest key of the component they let start. */
  private readonly grants = new Map<string, LaunchGrantMessage>();
  /** Components LAUNCHED here, by HostRequest key, as last reported. */
  private readonly launched = new Map<string, Launched>();
  /** Grants written (by key, the revision): a cache that lags the write does not write it twice. */
  private readonly started = new Map<string, string>();

  constructor(deps: { readonly api: OffloadApi; readonly requests: Informer<HostRequest> }) {
    this.deps = deps;
    // a dependency can be LAUNCHED before the granted component's HostRequest is in the cache
    // (start() then finds none): its arrival starts it; a failed write is left to the lease
    deps.requests.on('add', (_request, key) => {
      if (this.grants.has(key)) this.start(key).catch(() => undefined);
    });
  }

  /** A grant from an origin: kept, and acted on at once when its dependencies already run here. */
  async hold(msg: LaunchGrantMessage): Promise<string | undefined> {
    const key = hostedKey(msg.sender, msg.app, msg.component);
    this.grants.set(key, msg);
    return this.start(key);
  }

  /** A hosted component's reported phase; the components whose grant it may have completed are started. */
  async reported(key: string, status: { phase: string; endpoint?: string; ports?: readonly ReachablePort[] }): Promise<void> {
    if (status.phase !== 'LAUNCHED') {
      this.launched.delete(key);
      return;
    }
    this.launched.set(key, { ...(status.endpoint === undefined ? {} : { endpoint: status.endpoint }), ...(status.ports === undefined ? {} : { ports: status.ports }) });
    for (const [dependent, grant] of this.grants) {
      if (grant.after.some((d) => hostedKey(grant.sender, d.app, d.component) === key)) await this.start(dependent);
    }
  }

  /** The lease as this host takes it: a wait that a standing grant turned into a go is read as that go. */
  leased(msg: LeaseMessage): LeaseMessage {
    const key = hostedKey(msg.sender, msg.app, msg.component);
    const grant = this.grants.get(key);
    if (grant === undefined) return msg;
    if (msg.launch) {
      this.grants.delete(key);
      this.started.delete(key);
      return msg;
    }
    const terms = grantedTerms(grant, msg.revision, (k) => this.launched.get(k));
    return terms === undefined ? msg : { ...msg, ...terms };
  }

  /** A HostRequest missing from the cache: its grant goes, unless the component is still held here (its HostRequest made but not in the cache yet). */
  forgetGone(key: string, held: ReadonlyArray<{ readonly origin: string; readonly app: string; readonly component: string }>): void {
    if (!held.some((e) => hostedKey(e.origin, e.app, e.component) === key)) this.forget(key);
  }

  forget(key: string): void {
    this.grants.delete(key);
    this.launched.delete(key);
    this.started.delete(key);
  }

  /** Writes the granted go on the HostRequest when every dependency runs here; its key, to reconcile. */
  private async start(key: string): Promise<string | undefined> {
    const grant = this.grants.get(key);
    const request = this.deps.requests.get(key);
    if (grant === undefined || request === undefined || request.spec.launch === true || this.started.get(key) === grant.revision) return undefined;
    const terms = grantedTerms(grant, request.spec.revision, (k) => this.launched.get(k));
    if (terms === undefined) return undefined;
    await this.deps.api.patchLatest('HostRequest', request, { spec: terms });
    this.started.set(key, grant.revision);
    return key;
  }
}
