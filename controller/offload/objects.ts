// The Kubernetes objects of offloading, composed from plain data (pure): on the host, the
// component's Deployment and a NodePort Service within its namespace per origin; on the origin,
// a Deployment and Service for a component it runs itself (local first), or a selector-less
// Service with an EndpointSlice so callers reach a remote component under its own name, as if
// it were local (the role of the thesis's dronet/droneage).
import { isIP } from 'node:net';
import type { V1Deployment, V1EndpointSlice, V1EnvVar, V1OwnerReference, V1PodSpec, V1Service } from '@kubernetes/client-node';
import type { CustomObject } from '../../shared/crds/resources.ts';
import type { HostRequestSpec, HostRequestStatus, ServicePort } from '../../shared/crds/drone.ts';
import { HOSTED_FOR_LABEL } from '../drone/slicing/kube-input.ts';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../bundle/names.ts';
import type { DroneFederatedDeployment, Workload } from './workload.ts';
import { localDeploymentName } from './workload.ts';

export type HostRequest = CustomObject<HostRequestSpec, HostRequestStatus>;

export const LABEL_APP = 'drone.edgeshifu.io/app';
export const LABEL_COMPONENT = 'drone.edgeshifu.io/component';
export const LABEL_DEPLOYMENT = 'drone.edgeshifu.io/deployment';

function ownerRef(owner: { apiVersion: string; kind: string; metadata: { name?: string; uid?: string } }): V1OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
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
}

function deployment(a: DeploymentArgs): V1Deployment {
  const { spec, replicas } = podSpecFor(a.workload, a.cluster, a.env);
  const template = a.workload.template;
  const podLabels = { ...(template.spec.template.metadata?.labels ?? {}), ...a.labels, [HOSTED_FOR_LABEL]: a.hostedFor };
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: a.name, namespace: a.namespace, labels: { ...(template.metadata?.labels ?? {}), ...a.labels, [LABEL_MANAGED_BY]: MANAGED_BY }, annotations: { ...template.metadata?.annotations, ...a.annotations }, ownerReferences: [a.owner] },
    spec: {
      replicas,
      selector: { matchLabels: a.labels },
      template: { metadata: { labels: podLabels, annotations: template.spec.template.metadata?.annotations }, spec },
    },
  };
}

function servicePorts(ports: readonly ServicePort[]): NonNullable<V1Service['spec']>['ports'] {
  return ports.map((p, i) => ({ name: p.name ?? `port-${i}`, port: p.port, targetPort: p.targetPort ?? p.port, protocol: p.protocol ?? 'TCP' }));
}

/** Host side: the component's Deployment and NodePort Service, owned by its HostRequest. */
export function hostObjects(request: HostRequest, workload: Workload, cluster: string, names: { namespace: string; name: string; annotations?: Record<string, string> }): { deployment: V1Deployment; service: V1Service } {
  const labels = { [LABEL_APP]: names.name, [LABEL_COMPONENT]: request.spec.component };
  const owner = ownerRef(request);
  const common = { name: names.name, namespace: names.namespace, labels, owner };
  return {
    deployment: deployment({ ...common, hostedFor: request.spec.origin, workload, cluster, env: dependencyEnv(request.spec.dependencies ?? {}), annotations: names.annotations ?? {} }),
    service: {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: names.name, namespace: names.namespace, labels: { ...labels, [LABEL_MANAGED_BY]: MANAGED_BY, [HOSTED_FOR_LABEL]: request.spec.origin }, ownerReferences: [owner] },
      spec: { type: 'NodePort', selector: labels, ports: servicePorts(workload.ports) },
    },
  };
}

/** Origin side, local first: the component runs here under its own Service name. */
export function localObjects(dfd: DroneFederatedDeployment, args: { component: string; workload: Workload; cluster: string; env: V1EnvVar[] }): { deployment: V1Deployment; service: V1Service } {
  const namespace = dfd.metadata.namespace ?? '';
  const labels = { [LABEL_DEPLOYMENT]: dfd.metadata.name ?? '', [LABEL_COMPONENT]: args.component };
  const owner = ownerRef(dfd);
  return {
    deployment: deployment({ name: localDeploymentName(dfd, args.component), namespace, labels, hostedFor: args.cluster, workload: args.workload, cluster: args.cluster, env: args.env, owner }),
    service: {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: args.component, namespace, labels: { ...labels, [LABEL_MANAGED_BY]: MANAGED_BY }, ownerReferences: [owner] },
      spec: { selector: labels, ports: servicePorts(args.workload.ports) },
    },
  };
}

/**
 * Origin side, remote component: a Service without selector under the component's name and an
 * EndpointSlice to the host's endpoint; a host known only by DNS name gets an ExternalName.
 */
export function remoteObjects(dfd: DroneFederatedDeployment, args: { component: string; workload: Workload; endpoint: string }): { service: V1Service; slice?: V1EndpointSlice } {
  const namespace = dfd.metadata.namespace ?? '';
  const labels = { [LABEL_DEPLOYMENT]: dfd.metadata.name ?? '', [LABEL_COMPONENT]: args.component, [LABEL_MANAGED_BY]: MANAGED_BY };
  const owner = ownerRef(dfd);
  const at = args.endpoint.lastIndexOf(':');
  const host = args.endpoint.slice(0, at);
  const port = Number(args.endpoint.slice(at + 1));
  const ports = servicePorts(args.workload.ports.length > 0 ? args.workload.ports : [{ port }]) ?? [];
  const metadata = { name: args.component, namespace, labels, ownerReferences: [owner] };
  const family = isIP(host);
  if (family === 0) return { service: { apiVersion: 'v1', kind: 'Service', metadata, spec: { type: 'ExternalName', externalName: host, ports } } };
  // Only the first port is exposed by the host; a Service port maps to it by name.
  const first = ports[0];
  return {
    service: { apiVersion: 'v1', kind: 'Service', metadata, spec: { ports: first === undefined ? [] : [{ name: first.name, port: first.port, protocol: first.protocol, targetPort: port }] } },
    slice: {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${args.component}-remote`, namespace, labels: { ...labels, 'kubernetes.io/service-name': args.component, 'endpointslice.kubernetes.io/managed-by': 'edgeshifu-controller' }, ownerReferences: [owner] },
      addressType: family === 6 ? 'IPv6' : 'IPv4',
      endpoints: [{ addresses: [host], conditions: { ready: true } }],
      ports: [{ name: first?.name ?? 'port-0', port, protocol: first?.protocol ?? 'TCP' }],
    },
  };
}
