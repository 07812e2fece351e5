// Keeps each neighbour's namespace on this host in step with what it holds here (thin I/O over
// hosted-namespace.ts): its Pod Security labels, quota, limits and network policy, applied
// before anything runs in it and again as HostRequests come and go. Written when what is wanted
// changed since this process last wrote it, and again once a minute, so a quota or policy
// deleted by hand comes back.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Informer } from '../../shared/kube/informer.ts';
import type { Resources } from '../drone/model.ts';
import type { HostingPolicy } from './admission.ts';
import { hostedNamespaceObjects } from './hosted-namespace.ts';
import type { OffloadApi } from './kube.ts';
import type { HostRequest } from './objects.ts';
import { hostedNames } from './workload.ts';

const REWRITE_MS = 60_000;

const RESERVED = { cpu: 'drone.edgeshifu.io/cpu', memory: 'drone.edgeshifu.io/memory', pods: 'drone.edgeshifu.io/pods' } as const;

/** What the slice reserves for a HostRequest, kept on it so a restarted host holds the same (pods included). */
export function reservationAnnotations(resources: Resources): Record<string, string> {
  return { [RESERVED.cpu]: String(resources.cpu), [RESERVED.memory]: String(resources.memory), [RESERVED.pods]: String(resources.pods ?? 1) };
}

/** The reservation back from a HostRequest; one written before pods were counted holds one pod. */
export function reservedOf(request: HostRequest): Resources {
  const annotations = request.metadata.annotations ?? {};
  const pods = Number(annotations[RESERVED.pods] ?? 1);
  return { cpu: Number(annotations[RESERVED.cpu] ?? 0), memory: Number(annotations[RESERVED.memory] ?? 0), pods: Number.isInteger(pods) && pods >= 0 ? pods : 1 };
}


export interface HostedGuardDeps {
  readonly api: OffloadApi;
  readonly requests: Informer<HostRequest>;
  readonly policyOf: (origin: string) => HostingPolicy | undefined;
  readonly reservedOf: (request: HostRequest) => Resources;
}

export class HostedGuard {
  private readonly deps: HostedGuardDeps;
  private readonly written = new Map<string, { wanted: string; at: number }>();
  /** What the namespace's objects were last built from, and when. */
  private readonly built = new Map<string, { inputs: string; at: number }>();

  constructor(deps: HostedGuardDeps) {
    this.deps = deps;
  }

  /** Writes for one namespace, one after another: two interleaved could leave the older quota written last. */
  private readonly queues = new Map<string, Promise<void>>();
  /** The write queued behind the one in flight, per namespace: every caller arriving before it starts shares it. */
  private readonly waiting = new Map<string, Promise<void>>();
  private readonly pending = new Map<string, { request: HostRequest; reserved: Resources; at: number }>();

  /**
   * The origin's namespace as it should be with its HostRequests here, `extra` (one being made)
   * included. A caller waits for a write that starts after it called; callers that arrive while
   * one is in flight share the next (components accepted together: one quota write, not one each).
   */
  async ensure(origin: string, extra?: { request: HostRequest; reserved: Resources }): Promise<void> {
    const namespace = hostedNames(origin, '', '').namespace;
    if (extra !== undefined) this.pending.set(`${namespace}/${extra.request.metadata.name ?? ''}`, { ...extra, at: Date.now() });
    const shared = this.waiting.get(namespace);
    if (shared !== undefined) return shared;
    const previous = this.queues.get(namespace) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(() => {
      this.waiting.delete(namespace);
      return this.write(origin, namespace);
    });
    this.waiting.set(namespace, mine);
    const settled = mine.catch(() => undefined);
    this.queues.set(namespace, settled);
    try {
      await mine;
    } finally {
      if (this.queues.get(namespace) === settled) this.queues.delete(namespace);
    }
  }

  /** Whether this process has made the namespace: a HostRequest can then be made without waiting for its quota (the Deployment waits). */
  made(origin: string): boolean {
    return this.written.has(`${hostedNames(origin, '', '').namespace}/Namespace`);
  }

  /** What this process wrote for the namespace is in doubt (a HostRequest could not be made in it): the next pass writes it all. */
  forget(origin: string): void {
    const namespace = hostedNames(origin, '', '').namespace;
    for (const key of [...this.written.keys()]) if (key.startsWith(`${namespace}/`)) this.written.delete(key);
    this.built.delete(namespace);
  }

  private async write(origin: string, namespace: string): Promise<void> {
    const now = Date.now();
    const cached = this.deps.requests.list().filter((r) => r.metadata.namespace === namespace);
    const names = new Set(cached.map((r) => r.metadata.name));
    // a HostRequest being made counts until the cache has it (or, if its creation failed for good, for a while)
    const making = [...this.pending].filter(([key, p]) => {
      const keep = key.startsWith(`${namespace}/`) && !names.has(p.request.metadata.name) && now - p.at < REWRITE_MS;
      if (!keep && key.startsWith(`${namespace}/`)) this.pending.delete(key);
      return keep;
    }).map(([, p]) => ({ request: p.request, reserved: p.reserved }));
    const held = cached.filter((r) => r.metadata.deletionTimestamp === undefined).map((request) => ({ request, reserved: this.deps.reservedOf(request) }));
    const requests = [...held, ...making].sort((a, b) => (a.request.metadata.name ?? '').localeCompare(b.request.metadata.name ?? ''));
    // a neighbour whose Federation went runs nothing new; what it has keeps the strictest level
    const level = this.deps.policyOf(origin)?.level ?? 'restricted';
    // the objects follow the requests' specs (generation) and slices: unchanged, nothing to build
    // (built on every HostRequest reconcile, they were a third of a 300-app host's CPU)
    const inputs = `${level}|${requests.map(({ request: r, reserved: x }) => `${r.metadata.name ?? ''}@${String(r.metadata.generation ?? 0)}/${String(x.cpu)}/${String(x.memory)}/${String(x.pods ?? 1)}`).join(',')}`;
    const built = this.built.get(namespace);
    if (built?.inputs === inputs && now - built.at < REWRITE_MS) return;
    const objects = hostedNamespaceObjects({ origin, namespace, level, requests });
    // the namespace (with its labels) first: everything else lives in it; each object written when it changed
    for (const object of [objects.namespace, objects.quota, objects.limits, objects.policy] as KubernetesObject[]) {
      const key = `${namespace}/${object.kind ?? ''}`;
      const wanted = JSON.stringify(object);
      const last = this.written.get(key);
      if (last?.wanted === wanted && now - last.at < REWRITE_MS) continue;
      await this.deps.api.apply(object);
      this.written.set(key, { wanted, at: now });
    }
    this.built.set(namespace, { inputs, at: now }); // after every write landed: a failed one is tried again
  }
}
