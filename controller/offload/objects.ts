// The Kubernetes objects of offloading, composed from plain data (pure): on the host, the
// component's Deployment and a NodePort Service within its namespace per origin; on the origin,
// a Deployment and Service for a component it runs itself (local first), or a selector-less
// Service with an EndpointSlice so callers reach a remote component under its own name, as if
// it were local (the role of the thesis's dronet/droneage); the host makes the same for what a
// hosted component depends on, so the way back works too.
import { isIP } from 'node:net';
import type { V1Deployment, V1EndpointSlice, V1EnvVar, V1OwnerReference, V1PodSpec, V1Service } from '@kubernetes/client-node';
import type { CustomObject } from '../../shared/crds/resources.ts';
import type { HostRequestSpec, HostRequestStatus, ReachablePort, ServicePort } from '../../shared/crds/drone.ts';
import { HOSTED_FOR_LABEL } from '../drone/slicing/kube-input.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../bundle/names.ts';
import { createHash } from 'node:crypto';
import type { DroneFederatedDeployment, Workload } from './workload.ts';
import { localDeploymentName, namedPorts } from './workload.ts';
import { hardenedPodSpec, type PodSecurityLevel } from './pod-security.ts';

export type HostRequest = CustomObject<HostRequestSpec, HostRequestStatus>;

export const LABEL_APP = 'drone.edgeshifu.io/app';
export const LABEL_COMPONENT = 'drone.edgeshifu.io/component';
export const LABEL_DEPLOYMENT = 'drone.edgeshifu.io/deployment';
/** On a host, a dependency's Service: which origin deployment it serves (a digest: label values are short). */
export const LABEL_SOURCE = 'drone.edgeshifu.io/source';
const ANNOTATION_SOURCE = 'drone.edgeshifu.io/source';

/** An owner reference; several owners of one object are none of them its controller. */
function ownerRef(owner: { apiVersion: string; kind: string; metadata: { name?: string; uid?: string } }, controller = true): V1OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller, blockOwnerDeletion: true };
}

/** `db` → DB_SERVICE_HOST / DB_SERVICE_PORT, the variables Kubernetes itself gives for Services. */
export function dependencyEnv(dependencies: Readonly<Record<string, string>>): V1EnvVar[] {
  return Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)).flatMap(([name, endpoint]) => {
    const at = endpoint.lastIndexOf(':');
    const prefix = name.toUpperCase().replaceAll('-', '_');
    return [{ name: `${prefix}_SERVICE_HOST`, value: endpoint.slice(0, at) }, { name: `${prefix}_SERVICE_PORT`, value: endpoint.slice(at + 1) }];
  });
}

/** The pod spec with this cluster's overrides and extra environment applied. */
function podSpecFor(workload: Workload, cluster: string, env: V1EnvVar[]): { spec: V1PodSpec; replicas: number } {
  const spec = structuredClone(workload.template.spec.template.spec) as unknown as V1PodSpec;
  let replicas = workload.template.spec.replicas ?? 1;
  const extra = [...env];
  for (const o of workload.overrides.filter((x) => x.cluster === cluster)) {
    if (o.replicas !== undefined) replicas = o.replicas;
    const first = spec.containers[0];
    if (o.image !== undefined && first !== undefined) first.image = o.image;
    extra.push(...(o.env ?? []));
  }
  if (extra.length > 0) for (const c of spec.containers) c.env = [...(c.env ?? []), ...extra];
  return { spec, replicas };
}

interface DeploymentArgs {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Record<string, string>;
  readonly hostedFor: string;
  readonly workload: Workload;
  readonly cluster: string;
  readonly env: V1EnvVar[];
  readonly owner: V1OwnerReference;
  readonly annotations?: Record<string, string>;
  /** Hosted for a neighbour: run under this Pod Security level, within the reserved pods. */
  readonly hosted?: PodSecurityLevel;
}

function deployment(a: DeploymentArgs): V1Deployment {
  const made = podSpecFor(a.workload, a.cluster, a.env);
  const { replicas } = made;
  const spec = a.hosted === undefined ? made.spec : hardenedPodSpec(made.spec as unknown as Record<string, unknown>, a.hosted) as unknown as V1PodSpec;
  const template = a.workload.template;
  const podLabels = { ...(template.spec.template.metadata?.labels ?? {}), ...a.labels, [HOSTED_FOR_LABEL]: a.hostedFor };
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: a.name, namespace: a.namespace, labels: { ...(template.metadata?.labels ?? {}), ...a.labels, [LABEL_MANAGED_BY]: MANAGED_BY }, annotations: { ...template.metadata?.annotations, ...a.annotations }, ownerReferences: [a.owner] },
    spec: {
      replicas,
      // the namespace's quota holds the reserved pods and no more: a rollout replaces pods, it does not add one first
      ...(a.hosted === undefined ? {} : { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } }),
      selector: { matchLabels: a.labels },
      template: { metadata: { labels: podLabels, annotations: template.spec.template.metadata?.annotations }, spec },
    },
  };
}

function servicePorts(ports: readonly ServicePort[]): NonNullable<V1Service['spec']>['ports'] {
  return namedPorts(ports).map((p) => ({ name: p.name, port: p.port, targetPort: p.targetPort ?? p.port, protocol: p.protocol }));
}

/** Where a neighbour reaches a component exposed on a NodePort Service: every port, or undefined until each has its node port. */
export function reachablePorts(service: V1Service | undefined): ReachablePort[] | undefined {
  const ports = service?.spec?.ports ?? [];
  const reach = ports.flatMap((p) => (p.nodePort === undefined ? [] : [{ name: p.name ?? `port-${String(p.port)}`, port: p.port, at: p.nodePort, protocol: p.protocol === 'UDP' ? 'UDP' as const : 'TCP' as const }]));
  return reach.length === 0 || reach.length < ports.length ? undefined : reach;
}

/** A component reached at `host:port`: its address, and every port (one reported alone: the first declared, at the endpoint's port). */
export interface Reach {
  readonly address: string;
  readonly ports: readonly ReachablePort[];
}

export function reachOf(endpoint: string, ports: readonly ReachablePort[] | undefined, declared: readonly ServicePort[]): Reach {
  const at = endpoint.lastIndexOf(':');
  const address = endpoint.slice(0, at);
  if (ports !== undefined && ports.length > 0) return { address, ports };
  const port = Number(endpoint.slice(at + 1));
  const first = namedPorts(declared)[0] ?? namedPorts([{ port }])[0];
  return { address, ports: first === undefined ? [] : [{ name: first.name, port: first.port, at: port, protocol: first.protocol }] };
}

/** Host side: the component's Deployment and NodePort Service, owned by its HostRequest. */
export function hostObjects(request: HostRequest, workload: Workload, cluster: string, names: { namespace: string; name: string; annotations?: Record<string, string>; level?: PodSecurityLevel }): { deployment: V1Deployment; service: V1Service } {
  const labels = { [LABEL_APP]: names.name, [LABEL_COMPONENT]: request.spec.component };
  const owner = ownerRef(request);
  const common = { name: names.name, namespace: names.namespace, labels, owner };
  return {
    deployment: deployment({ ...common, hostedFor: request.spec.origin, workload, cluster, env: dependencyEnv(request.spec.dependencies ?? {}), annotations: names.annotations ?? {}, hosted: names.level ?? 'restricted' }),
    service: {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: names.name, namespace: names.namespace, labels: { ...labels, [LABEL_MANAGED_BY]: MANAGED_BY, [HOSTED_FOR_LABEL]: request.spec.origin }, ownerReferences: [owner] },
      spec: { type: 'NodePort', selector: labels, ports: servicePorts(workload.ports) },
    },
  };
}

/**
 * Origin side, local first: the component runs here under its own Service name, a NodePort one
 * when a component placed on a neighbour depends on it (`exposed`), so that one reaches it here.
 */
export function localObjects(dfd: DroneFederatedDeployment, args: { component: string; workload: Workload; cluster: string; env: V1EnvVar[]; exposed?: boolean }): { deployment: V1Deployment; service: V1Service } {
  const namespace = dfd.metadata.namespace ?? '';
  const labels = { [LABEL_DEPLOYMENT]: dfd.metadata.name ?? '', [LABEL_COMPONENT]: args.component };
  const owner = ownerRef(dfd);
  return {
    deployment: deployment({ name: localDeploymentName(dfd, args.component), namespace, labels, hostedFor: args.cluster, workload: args.workload, cluster: args.cluster, env: args.env, owner }),
    service: {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: args.component, namespace, labels: { ...labels, [LABEL_MANAGED_BY]: MANAGED_BY }, ownerReferences: [owner] },
      spec: { ...(args.exposed === true ? { type: 'NodePort' } : {}), selector: labels, ports: servicePorts(args.workload.ports) },
    },
  };
}

interface ConnectTarget {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly owners: V1OwnerReference[];
  readonly annotations?: Record<string, string>;
}

/**
 * A Service without selector, named as callers expect, and an EndpointSlice to where the
 * component is reached, every port by name; a component known only by DNS name gets an
 * ExternalName. The origin makes these for a remote component, a host for a component its
 * hosted one depends on (the role of the thesis's dronet/droneage, both ways).
 */
export function connectObjects(target: ConnectTarget, reach: Reach): { service: V1Service; slice?: V1EndpointSlice } {
  const metadata = { name: target.name, namespace: target.namespace, labels: target.labels, ownerReferences: target.owners, ...(target.annotations === undefined ? {} : { annotations: target.annotations }) };
  const ports = reach.ports.map((p) => ({ name: p.name, port: p.port, targetPort: p.at, protocol: p.protocol ?? 'TCP' }));
  const family = isIP(reach.address);
  if (family === 0) return { service: { apiVersion: 'v1', kind: 'Service', metadata, spec: { type: 'ExternalName', externalName: reach.address, ports } } };
  return {
    service: { apiVersion: 'v1', kind: 'Service', metadata, spec: { ports } },
    slice: {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${target.name}-remote`, namespace: target.namespace, labels: { ...target.labels, 'kubernetes.io/service-name': target.name, 'endpointslice.kubernetes.io/managed-by': 'edgeshifu-controller' }, ownerReferences: target.owners },
      addressType: family === 6 ? 'IPv6' : 'IPv4',
      endpoints: [{ addresses: [reach.address], conditions: { ready: true } }],
      // a Service port maps to the slice's port of the same name
      ports: ports.map((p) => ({ name: p.name, port: p.targetPort, protocol: p.protocol })),
    },
  };
}

/** Origin side, remote component: reached under its own name in the deployment's namespace. */
export function remoteObjects(dfd: DroneFederatedDeployment, args: { component: string; reach: Reach }): { service: V1Service; slice?: V1EndpointSlice } {
  const labels = { [LABEL_DEPLOYMENT]: dfd.metadata.name ?? '', [LABEL_COMPONENT]: args.component, [LABEL_MANAGED_BY]: MANAGED_BY };
  return connectObjects({ namespace: dfd.metadata.namespace ?? '', name: args.component, labels, owners: [ownerRef(dfd)] }, args.reach);
}

/** The origin deployment an app id belongs to, as a label value: `<namespace>.<name>` of `<namespace>.<name>.<attempt>`, digested. */
export function sourceOf(origin: string, app: string): { label: string; name: string } {
  const name = app.slice(0, Math.max(0, app.lastIndexOf('.')));
  return { label: createHash('sha256').update(`${origin}/${name}`).digest('hex').slice(0, 16), name: `${origin}/${name}` };
}

/**
 * Host side: the Services (and EndpointSlices) of what a hosted component depends on, named as
 * the dependencies in its namespace, so it reaches each under the name it expects. Every
 * HostRequest of the same origin deployment that depends on one owns it: it goes with the last.
 */
export function dependencyObjects(request: HostRequest, sharers: readonly HostRequest[]): Array<{ service: V1Service; slice?: V1EndpointSlice }> {
  const { origin, app } = request.spec;
  const source = sourceOf(origin, app);
  const namespace = request.metadata.namespace ?? '';
  return Object.entries(request.spec.dependencyPorts ?? {}).sort(([a], [b]) => a.localeCompare(b)).flatMap(([dependency, ports]) => {
    const endpoint = request.spec.dependencies?.[dependency];
    if (endpoint === undefined || ports.length === 0) return [];
    const owners = [request, ...sharers]
      .filter((r, i, all) => all.findIndex((o) => o.metadata.uid === r.metadata.uid) === i)
      .filter((r) => r.metadata.namespace === namespace && sourceOf(r.spec.origin, r.spec.app).label === source.label && r.spec.dependencyPorts?.[dependency] !== undefined)
      .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
      .map((r) => ownerRef(r, false));
    const labels = { [LABEL_COMPONENT]: dependency, [LABEL_SOURCE]: source.label, [LABEL_MANAGED_BY]: MANAGED_BY, [HOSTED_FOR_LABEL]: origin };
    return [connectObjects({ namespace, name: dependency, labels, owners, annotations: { [ANNOTATION_SOURCE]: source.name } }, reachOf(endpoint, ports, []))];
  });
}

/** Why a hosted component's dependency cannot have its Service here: the name is held by something else. */
export function dependencyClash(request: HostRequest, dependency: string, existing: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined): string | undefined {
  if (existing === undefined) return undefined;
  const labels = existing.labels ?? {};
  const source = sourceOf(request.spec.origin, request.spec.app);
  if (labels[LABEL_MANAGED_BY] === MANAGED_BY && labels[LABEL_SOURCE] === source.label) return undefined;
  const holder = labels[LABEL_SOURCE] === undefined ? 'was not made for a dependency by edgeshifu' : `serves ${existing.annotations?.[ANNOTATION_SOURCE] ?? 'another deployment'}`;
  return `Service ${request.metadata.namespace ?? ''}/${dependency} already exists and ${holder}; ${request.spec.component} reaches its dependency ${dependency} under that name: rename the component in one of the deployments`;
}
