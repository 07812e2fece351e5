// The offloading side's decisions over plain data (pure; DRONE v2's offloading workflow):
// how a DroneFederatedDeployment's status moves with auctions, agreements, hosts' reports and
// losses, and what each host is told in its lease.
import type { ComponentPhase, ComponentStatus, DeploymentPhase, DroneFederatedDeploymentStatus, ReachablePort } from '../../shared/crds/drone.ts';
import type { DroneEvent } from '../drone/agent-core.ts';
import type { LaunchGrantMessage, LeaseMessage } from '../drone/messages/index.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../bundle/names.ts';
import { LABEL_DEPLOYMENT } from './objects.ts';
import { appId, revisionOf, workloadOf, type DroneFederatedDeployment } from './workload.ts';
import { sameJson } from '../status.ts';
import { noRoomCondition } from './reclaim-plan.ts';

export type Status = DroneFederatedDeploymentStatus;
export type Decision = Extract<DroneEvent, { type: 'placed' | 'failed' }>;

/** The deployment a DRONE app id belongs to: `<namespace>.<name>.<attempt>`. */
export function deploymentOfApp(app: string): { namespace: string; name: string; attempt: number } | undefined {
  const first = app.indexOf('.');
  const last = app.lastIndexOf('.');
  const attempt = Number(app.slice(last + 1));
  if (first <= 0 || last <= first + 1 || !Number.isInteger(attempt)) return undefined;
  return { namespace: app.slice(0, first), name: app.slice(first + 1, last), attempt };
}

function componentsOf(status: Status): ComponentStatus[] {
  return status.components ?? [];
}

/** A new auction for every component without a cluster (all of them the first time). */
export function startAuction(dfd: DroneFederatedDeployment, status: Status, reason = 'looking for a cluster with room'): Status {
  const attempt = (status.attempt ?? 0) + 1;
  const known = new Map(componentsOf(status).map((c) => [c.name, c]));
  const components = dfd.spec.components.map((c): ComponentStatus => {
    const held = known.get(c.name);
    return held?.cluster !== undefined && held.phase !== 'FAILED' ? held : { name: c.name, phase: 'SCHEDULING' };
  });
  return { ...status, observedGeneration: dfd.metadata.generation, phase: 'SCHEDULING', app: appId(dfd, attempt), attempt, components, reason };
}

/** The components the current auction is for. */
export function unplaced(status: Status): string[] {
  return componentsOf(status).filter((c) => c.cluster === undefined).map((c) => c.name);
}

/** The agreement's outcome, written once: placed components get their cluster, or the deployment fails with the reason. */
export function applyDecision(status: Status, decision: Decision, self: string): Status {
  if (decision.app !== status.app) return status;
  if (decision.type === 'failed') {
    return { ...status, phase: 'FAILED', reason: decision.reason, components: componentsOf(status).map((c) => (c.cluster === undefined ? { ...c, phase: 'FAILED', message: decision.reason } : c)) };
  }
  const components = componentsOf(status).map((c): ComponentStatus => {
    const cluster = decision.placement[c.name];
    if (c.cluster !== undefined || cluster === undefined) return c;
    return { name: c.name, cluster, app: decision.app, phase: cluster === self ? 'SCHEDULED' : 'ASSIGNED' };
  });
  return { ...status, phase: 'PENDING', reason: 'placed; starting the components', components };
}

export interface Observation {
  readonly phase: ComponentPhase;
  readonly endpoint?: string;
  /** Every port at the endpoint's address, when a neighbour can reach it there. */
  readonly ports?: readonly ReachablePort[];
  readonly message?: string;
}

/** What is seen of each placed component (host reports, local Deployments) folded into the status. */
export function observe(status: Status, seen: ReadonlyMap<string, Observation>): Status {
  const components = componentsOf(status).map((c): ComponentStatus => {
    const o = c.cluster === undefined ? undefined : seen.get(c.name);
    if (o === undefined) return c;
    const next: ComponentStatus = { ...c, phase: o.phase };
    if (o.endpoint === undefined) delete next.endpoint;
    else next.endpoint = o.endpoint;
    if (o.ports === undefined) delete next.ports;
    else next.ports = [...o.ports];
    if (o.message === undefined) delete next.message;
    else next.message = o.message;
    return next;
  });
  return { ...status, components, ...overall(status, components) };
}

function overall(status: Status, components: readonly ComponentStatus[]): { phase: DeploymentPhase; reason: string } {
  if (status.phase === 'FAILED' || status.phase === 'DONE') return { phase: status.phase, reason: status.reason ?? '' };
  if (components.some((c) => c.cluster === undefined)) return { phase: 'SCHEDULING', reason: status.reason ?? 'looking for a cluster with room' };
  const waiting = components.filter((c) => c.phase !== 'LAUNCHED');
  if (waiting.length === 0) return { phase: 'RUNNING', reason: `every component runs: ${components.map((c) => `${c.name} on ${c.cluster ?? '?'}`).join(', ')}` };
  return { phase: 'PENDING', reason: `waiting for ${waiting.map((c) => `${c.name} (${c.phase})`).join(', ')}` };
}

/** Components whose host is lost send them back to the agreement (the host is excluded next time). */
export function returnLost(status: Status, lost: ReadonlyMap<string, string>): Status {
  if (lost.size === 0) return status;
  const components = componentsOf(status).map((c): ComponentStatus => {
    const why = lost.get(c.name);
    return why === undefined ? c : { name: c.name, phase: 'SCHEDULING', message: why };
  });
  return { ...status, components, phase: 'SCHEDULING', reason: [...lost.values()].join('; ') };
}

export interface Readiness {
  readonly launch: boolean;
  readonly dependencies: Record<string, string>;
  /** Every port of each dependency reachable from a neighbour (absent: none is). */
  readonly dependencyPorts?: Record<string, ReachablePort[]>;
}

/** Whether a component's boot dependencies are launched, and where they are. */
export function readiness(dfd: DroneFederatedDeployment, status: Status, component: string): Readiness {
  const spec = dfd.spec.components.find((c) => c.name === component);
  const byName = new Map(componentsOf(status).map((c) => [c.name, c]));
  const dependencies: Record<string, string> = {};
  const dependencyPorts: Record<string, ReachablePort[]> = {};
  let launch = true;
  for (const dep of spec?.bootDependencies ?? []) {
    const held = byName.get(dep);
    if (held?.phase !== 'LAUNCHED') launch = false;
    if (held?.endpoint !== undefined) dependencies[dep] = held.endpoint;
    if (held?.endpoint !== undefined && held.ports !== undefined && held.ports.length > 0) dependencyPorts[dep] = held.ports;
  }
  // where they are is said with the go, not before: a dependency's endpoint known before it is
  // LAUNCHED (CONNECTED) was one more lease, HostRequest write and reconcile on the host per component
  if (!launch) return { launch, dependencies: {} };
  // an older host refuses a lease with a field it does not know: sent only when there is something in it
  return { launch, dependencies, ...(Object.keys(dependencyPorts).length === 0 ? {} : { dependencyPorts }) };
}

/** Whether a component placed on a neighbour depends on this one: then it must be reachable from there. */
export function neededRemotely(dfd: DroneFederatedDeployment, status: Status, component: string, self: string): boolean {
  const placed = new Map(componentsOf(status).map((c) => [c.name, c.cluster]));
  return dfd.spec.components.some((c) => (c.bootDependencies ?? []).includes(component) && placed.get(c.name) !== undefined && placed.get(c.name) !== self);
}

/**
 * A component running here, as the status shows it: reached as `<component>.<namespace>.svc`
 * by its neighbours in this cluster, or, when one placed elsewhere needs it, at this cluster's
 * public address on its node ports (`exposed`); LAUNCHED only once it is reachable where needed.
 */
export function localObservation(args: { component: string; namespace: string; running: boolean; firstPort?: number; exposed?: { endpoint: string; ports: ReachablePort[] } | 'unreachable' }): Observation {
  const { component, namespace, running, exposed } = args;
  if (exposed === 'unreachable') return { phase: 'SCHEDULED', message: 'waiting for its node ports and this cluster\'s public address, so that a neighbour reaches it' };
  const at = exposed ?? (args.firstPort === undefined ? {} : { endpoint: `${component}.${namespace}.svc:${String(args.firstPort)}` });
  return { phase: running ? 'LAUNCHED' : 'SCHEDULED', ...at, message: running ? 'running here' : 'starting here' };
}

export type LeaseBody = Omit<LeaseMessage, 'v' | 'id' | 'sender' | 'timestamp' | 'hops'>;

/** One lease per component a neighbour runs for this deployment. */
export function leasesFor(dfd: DroneFederatedDeployment, status: Status, self: string, leaseSeconds: number): LeaseBody[] {
  if (status.phase === 'DONE') return [];
  return componentsOf(status).flatMap((c) => {
    const spec = dfd.spec.components.find((s) => s.name === c.name);
    if (c.cluster === undefined || c.cluster === self || c.app === undefined || spec === undefined) return [];
    const workload = workloadOf(dfd.spec, spec);
    // movable only when true: an older host refuses a field it does not know
    return [{ kind: 'lease' as const, to: c.cluster, app: c.app, component: c.name, revision: revisionOf(workload), workload, ...readiness(dfd, status, c.name), leaseSeconds, ...(dfd.spec.movable === true ? { movable: true } : {}) }];
  });
}

export type LaunchGrantBody = Omit<LaunchGrantMessage, 'v' | 'id' | 'sender' | 'timestamp' | 'hops'>;

/**
 * A grant per remote component that waits only for boot dependencies placed on its own host
 * (README, "Boot dependencies on one host"): that host may start it on their LAUNCHED there,
 * without the round trip through this cluster. None for one that may start already, or that
 * waits for a dependency anywhere else.
 */
export function launchGrantsFor(dfd: DroneFederatedDeployment, status: Status, self: string): LaunchGrantBody[] {
  if (status.phase === 'DONE') return [];
  const byName = new Map(componentsOf(status).map((c) => [c.name, c]));
  return componentsOf(status).flatMap((c) => {
    const spec = dfd.spec.components.find((s) => s.name === c.name);
    const deps = (spec?.bootDependencies ?? []).map((d) => byName.get(d));
    if (c.cluster === undefined || c.cluster === self || c.app === undefined || spec === undefined || deps.length === 0) return [];
    if (readiness(dfd, status, c.name).launch) return [];
    const after = deps.flatMap((d) => (d !== undefined && d.cluster === c.cluster && d.app !== undefined && d.phase !== 'FAILED' ? [{ app: d.app, component: d.name }] : []));
    if (after.length < deps.length) return [];
    return [{ kind: 'launch-grant' as const, to: c.cluster, app: c.app, component: c.name, revision: revisionOf(workloadOf(dfd.spec, spec)), after }];
  });
}

/** Whether two statuses differ in anything worth a write. */
export function statusChanged(a: Status | undefined, b: Status): boolean {
  // as JSON values: the API server hands the stored status back with its keys in its own order
  return !sameJson(a ?? {}, b);
}

/**
 * Why a component cannot have its Service: callers in the namespace reach a component under its
 * own name, so a Service of that name that another DroneFederatedDeployment made, or that
 * edgeshifu did not make at all, is not taken over. Undefined when the name is free or ours.
 */
export function serviceClash(dfd: DroneFederatedDeployment, component: string, existing: { labels?: Record<string, string> } | undefined): string | undefined {
  if (existing === undefined) return undefined;
  const labels = existing.labels ?? {};
  const owner = labels[LABEL_MANAGED_BY] === MANAGED_BY ? labels[LABEL_DEPLOYMENT] : undefined;
  if (owner === dfd.metadata.name) return undefined;
  const holder = owner === undefined ? 'was not made by edgeshifu' : `belongs to DroneFederatedDeployment ${owner}`;
  return `Service ${dfd.metadata.namespace ?? ''}/${component} already exists and ${holder}; callers reach component ${component} under that name: rename the component, or create this DroneFederatedDeployment in another namespace`;
}

/** A host's refusal (NACK) of one component, with its reason. */
export interface Refusal {
  readonly host: string;
  readonly component: string;
  readonly reason: string;
  /** The deployment's generation the refused template was of. */
  readonly generation?: number;
}

/**
 * The deployment's Ready condition: why it does not run, in a form a user acts on. A FAILED
 * deployment that hosts refused says RefusedByHost with each host's reason, which names every
 * field its policy refuses.
 */
export function readyCondition(status: Status, refusals: readonly Refusal[]): { type: 'Ready'; status: 'True' | 'False'; reason: string; message: string } {
  const message = status.reason ?? '';
  if (status.phase === 'RUNNING') return { type: 'Ready', status: 'True', reason: 'Running', message };
  if (status.phase === 'DONE') return { type: 'Ready', status: 'False', reason: 'Released', message };
  if (status.phase === 'FAILED' && refusals.length > 0) {
    return { type: 'Ready', status: 'False', reason: 'RefusedByHost', message: refusals.map((r) => `${r.host} refused ${r.component}: ${r.reason}`).join('\n') };
  }
  if (status.phase === 'FAILED') return noRoomCondition(status) ?? { type: 'Ready', status: 'False', reason: 'Failed', message };
  return { type: 'Ready', status: 'False', reason: status.phase === 'PENDING' ? 'Starting' : 'Scheduling', message };
}

/** A status text within the API's limit for it. */
export function capped(text: string, limit = 1024): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
