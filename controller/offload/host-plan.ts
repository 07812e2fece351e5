// Where a HostRequest stands, from what the hosting cluster sees (pure; DRONE v2 HostRequest
// states): ACCEPTED until the origin says go, SCHEDULED once its Deployment exists,
// CONNECTED once neighbours can reach its Service, LAUNCHED once it runs; expired when the origin
// stopped renewing the lease (DRONE v2's garbage collector of locked resources).
import type { V1Deployment, V1Node, V1Service } from '@kubernetes/client-node';
import type { HostPhase, ReachablePort } from '../../shared/crds/drone.ts';
import type { HostStatusMessage, LeaseMessage } from '../drone/messages/index.ts';
import { sameJson } from '../status.ts';
import { reachablePorts, type HostRequest } from './objects.ts';

export interface HostView {
  readonly request: HostRequest;
  readonly deployment?: V1Deployment;
  readonly service?: V1Service;
  /** Address neighbours reach this cluster's NodePorts at. */
  readonly address?: string;
  readonly now: number;
  /** A renewal heard since the stored lastRenewTime was written. */
  readonly renewedAt?: number;
}

/** What a host-status says about a component, without the envelope. */
export type HostStatusBody = Omit<HostStatusMessage, 'kind' | 'to' | 'app' | 'component' | 'v' | 'id' | 'sender' | 'timestamp' | 'hops'>;

export type HostVerdict =
  | { readonly expired: true; readonly reason: string }
  | { readonly expired: false; readonly phase: HostPhase; readonly endpoint?: string; readonly ports?: ReachablePort[]; readonly message: string };

/** When the lease ends: from the last renewal (stored, or heard since), or from creation before the first one. */
export function leaseEnd(request: HostRequest, renewedAt = 0): number {
  const from = request.status?.lastRenewTime ?? request.metadata.creationTimestamp;
  const stored = from === undefined ? Number.NaN : new Date(from).getTime();
  return Math.max(Number.isNaN(stored) ? Date.now() : stored, renewedAt) + request.spec.leaseSeconds * 1000;
}

export function available(deployment: V1Deployment | undefined): boolean {
  if (deployment === undefined) return false;
  const want = deployment.spec?.replicas ?? 1;
  const s = deployment.status ?? {};
  const current = (s.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0);
  return current && (s.updatedReplicas ?? 0) >= want && (s.availableReplicas ?? 0) >= want;
}

/** Where neighbours reach an exposed component: the address with its first node port, and every port; undefined until each port has one. */
export function exposedAt(service: V1Service | undefined, address: string | undefined): { endpoint: string; ports: ReachablePort[] } | undefined {
  const ports = reachablePorts(service);
  const first = ports?.[0];
  return ports === undefined || first === undefined || address === undefined ? undefined : { endpoint: `${address}:${String(first.at)}`, ports };
}

export function hostVerdict(view: HostView): HostVerdict {
  const { request, now } = view;
  if (now > leaseEnd(request, view.renewedAt)) return { expired: true, reason: `the origin ${request.spec.origin} has not renewed the lease for ${request.spec.leaseSeconds} s` };
  if (request.spec.launch !== true) return { expired: false, phase: 'ACCEPTED', message: 'slice reserved; waiting for the origin to start it (boot dependencies)' };
  if (view.deployment === undefined) return { expired: false, phase: 'SCHEDULED', message: 'creating the Deployment' };
  const exposes = (view.service?.spec?.ports?.length ?? 0) > 0;
  const at = exposes ? exposedAt(view.service, view.address) : undefined;
  const reachable = !exposes || at !== undefined;
  if (!reachable) return { expired: false, phase: 'SCHEDULED', message: view.address === undefined ? 'no node address to expose it at' : 'waiting for the Service\'s node port' };
  const running = available(view.deployment);
  return {
    expired: false,
    phase: running ? 'LAUNCHED' : 'CONNECTED',
    ...(at === undefined ? {} : at),
    message: running ? 'running' : 'reachable; waiting for its pods to be available',
  };
}

/** The address to publish: configured, else the InternalIP of the first Ready node. */
export function publicAddress(configured: string | undefined, nodes: readonly V1Node[]): string | undefined {
  if (configured !== undefined) return configured;
  const ready = nodes.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true && n.spec?.unschedulable !== true);
  ready.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  for (const node of ready) {
    const ip = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
    if (ip !== undefined) return ip;
  }
  return undefined;
}

/** What of a HostRequest's spec a lease sets. */
export interface LeasedSpec {
  readonly workload: unknown;
  readonly revision?: string;
  readonly launch?: boolean;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly dependencyPorts: Readonly<Record<string, readonly ReachablePort[]>>;
  readonly leaseSeconds: number;
  readonly movable: boolean;
}

/**
 * The spec to write when a lease says something the stored spec does not; undefined for a plain
 * renewal. Compared as JSON values, not as text: the API server returns the stored workload's
 * keys in its own order, so a text comparison saw every renewal as a change and turned each
 * renewal round into one spec write and one conflict-prone reconcile per hosted component.
 */
export function leasedSpec(msg: LeaseMessage, spec: HostRequest['spec']): LeasedSpec | undefined {
  const wanted: LeasedSpec = { workload: msg.workload, revision: msg.revision, launch: msg.launch, dependencies: msg.dependencies, dependencyPorts: msg.dependencyPorts ?? {}, leaseSeconds: msg.leaseSeconds, movable: msg.movable === true };
  const held: LeasedSpec = { workload: spec.workload, revision: spec.revision, launch: spec.launch, dependencies: spec.dependencies ?? {}, dependencyPorts: spec.dependencyPorts ?? {}, leaseSeconds: spec.leaseSeconds, movable: spec.movable === true };
  return sameJson(wanted, held) ? undefined : wanted;
}

/**
 * Whether a HostRequest's update is only the stored renewal (`status.lastRenewTime`, written every
 * half lease): nothing to reconcile. Reconciled on it, every hosted component was looked at again
 * on each renewal write, a cost per component that grew with what the host holds.
 */
export function renewalOnly(previous: HostRequest | undefined, current: HostRequest): boolean {
  if (previous === undefined) return false;
  const view = (r: HostRequest): unknown => ({
    spec: r.spec, status: { ...r.status, lastRenewTime: undefined },
    metadata: { generation: r.metadata.generation, deletionTimestamp: r.metadata.deletionTimestamp, labels: r.metadata.labels, annotations: r.metadata.annotations, finalizers: r.metadata.finalizers },
  });
  return sameJson(view(previous), view(current));
}
