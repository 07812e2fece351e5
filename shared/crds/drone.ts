// The Kubernetes side of DRONE offloading (the DRONE thesis's operator, ch. 6–7, and DRONE v2's
// offloading workflow): what a user asks for (DroneFederatedDeployment, modelled on the thesis's CRD),
// what the offloading cluster tracks per component (OffloadRequest) and what a hosting cluster
// runs for another (HostRequest). Phases are DRONE v2's, so `kubectl get` tells where each stands.
import { Type, type Static } from '@sinclair/typebox';
import { celRules, Conditions, Quantity, StringEnum, StringMap, Timestamp } from './schema.ts';

const ClusterId = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' });
/** A component name becomes a Service name in the offloading cluster, so it is a DNS label. */
const ComponentName = Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$' });

/** Anything Kubernetes itself validates later (a pod spec): kept as given. */
function Preserved(description: string): ReturnType<typeof Type.Unsafe<Record<string, unknown>>> {
  return Type.Unsafe<Record<string, unknown>>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description });
}

export const ServicePort = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 15, pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$' })),
  port: Type.Integer({ minimum: 1, maximum: 65535, description: 'Port callers use.' }),
  targetPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'Container port; `port` when absent.' })),
  protocol: Type.Optional(StringEnum(['TCP', 'UDP'])),
});
export type ServicePort = Static<typeof ServicePort>;

/** One port of a component as another cluster reaches it: callers' `port`, reached at `at` (a NodePort) on the endpoint's address. */
export const ReachablePort = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }),
  port: Type.Integer({ minimum: 1, maximum: 65535, description: 'Port callers use.' }),
  at: Type.Integer({ minimum: 1, maximum: 65535, description: 'Port it is reached at on the endpoint\'s address.' }),
  protocol: Type.Optional(StringEnum(['TCP', 'UDP'])),
});
export type ReachablePort = Static<typeof ReachablePort>;
const ReachablePorts = (description: string): ReturnType<typeof Type.Array<typeof ReachablePort>> => Type.Array(ReachablePort, { maxItems: 16, description });

/** The Deployment a component runs as (the thesis's `template`): its metadata and spec, without selector. */
export const DeploymentTemplate = Type.Object({
  metadata: Type.Optional(Type.Object({ labels: Type.Optional(StringMap()), annotations: Type.Optional(StringMap()) })),
  spec: Type.Object({
    replicas: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 1 })),
    template: Type.Object({
      metadata: Type.Optional(Type.Object({ labels: Type.Optional(StringMap()), annotations: Type.Optional(StringMap()) })),
      spec: Preserved('A pod spec; every container should request cpu and memory, which is what the federation reserves.'),
    }),
  }),
});
export type DeploymentTemplate = Static<typeof DeploymentTemplate>;

export const FederatedComponent = Type.Object({
  name: ComponentName,
  template: DeploymentTemplate,
  ports: Type.Optional(Type.Array(ServicePort, { maxItems: 16, description: 'Exposed under a Service named as the component, wherever it runs.' })),
  bootDependencies: Type.Optional(Type.Array(ComponentName, { maxItems: 16, description: 'Components that must be LAUNCHED before this one starts.' })),
});
export type FederatedComponent = Static<typeof FederatedComponent>;

export const Override = Type.Object({
  cluster: ClusterId,
  component: Type.Optional(ComponentName),
  replicas: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  image: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Image of the first container.' })),
  env: Type.Optional(Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }), value: Type.String({ maxLength: 4096 }) }), { maxItems: 64 })),
});
export type Override = Static<typeof Override>;

export const DroneFederatedDeploymentSpec = Type.Object({
  components: Type.Array(FederatedComponent, {
    minItems: 1, maxItems: 16, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
    ...celRules({ rule: 'self.all(c, !has(c.bootDependencies) || c.bootDependencies.all(d, self.exists(o, o.name == d) && d != c.name))', message: 'every bootDependency must name another component of this deployment' }),
  }),
  placement: Type.Optional(Type.Object({
    clusters: Type.Optional(Type.Object({
      allowed: Type.Optional(Type.Array(ClusterId, { maxItems: 256, description: 'When set, only these clusters may run components.' })),
      denied: Type.Optional(Type.Array(ClusterId, { maxItems: 256 })),
    })),
  })),
  overrides: Type.Optional(Type.Array(Override, { maxItems: 64, description: 'Changes applied where a component runs on the named cluster.' })),
  offload: Type.Optional(Type.Boolean({ description: 'Run elsewhere even when this cluster has room.' })),
  movable: Type.Optional(Type.Boolean({ description: 'Components may move to another cluster even once LAUNCHED, to make room for another job (DRONE reclaim); by default only components not yet launched move.' })),
});
export type DroneFederatedDeploymentSpec = Static<typeof DroneFederatedDeploymentSpec>;

export const DEPLOYMENT_PHASES = ['SCHEDULING', 'PENDING', 'RUNNING', 'DONE', 'FAILED'] as const;
export type DeploymentPhase = typeof DEPLOYMENT_PHASES[number];
/** A component's journey; LOCAL means the origin runs it itself (local first). */
export const COMPONENT_PHASES = ['SCHEDULING', 'ASSIGNED', 'ACCEPTED', 'SCHEDULED', 'CONNECTED', 'LAUNCHED', 'RELEASED', 'FAILED'] as const;
export type ComponentPhase = typeof COMPONENT_PHASES[number];

export const ComponentStatus = Type.Object({
  name: ComponentName,
  cluster: Type.Optional(ClusterId),
  app: Type.Optional(Type.String({ maxLength: 253, description: 'The DRONE app (auction) this component was placed by.' })),
  phase: StringEnum(COMPONENT_PHASES),
  endpoint: Type.Optional(Type.String({ maxLength: 300, description: 'host:port where it is reached.' })),
  ports: Type.Optional(ReachablePorts('Every port, where a neighbour reaches it at the endpoint\'s address.')),
  message: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type ComponentStatus = Static<typeof ComponentStatus>;

export const DroneFederatedDeploymentStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  phase: Type.Optional(StringEnum(DEPLOYMENT_PHASES)),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  app: Type.Optional(Type.String({ maxLength: 253, description: 'The current auction.' })),
  attempt: Type.Optional(Type.Integer({ minimum: 0 })),
  components: Type.Optional(Type.Array(ComponentStatus, { maxItems: 16 })),
  conditions: Type.Optional(Conditions),
});
export type DroneFederatedDeploymentStatus = Static<typeof DroneFederatedDeploymentStatus>;

export const OffloadRequestSpec = Type.Object({
  deployment: Type.String({ minLength: 1, maxLength: 253, description: 'The DroneFederatedDeployment this is part of.' }),
  component: ComponentName,
  app: Type.String({ minLength: 1, maxLength: 253 }),
  cluster: ClusterId,
});
export type OffloadRequestSpec = Static<typeof OffloadRequestSpec>;

export const OFFLOAD_PHASES = ['ASSIGNED', 'ACCEPTED', 'SCHEDULED', 'CONNECTED', 'LAUNCHED', 'RELEASED', 'FAILED'] as const;
export const OffloadRequestStatus = Type.Object({
  phase: Type.Optional(StringEnum(OFFLOAD_PHASES)),
  endpoint: Type.Optional(Type.String({ maxLength: 300 })),
  ports: Type.Optional(ReachablePorts('Every port of the component at the endpoint\'s address, as the host reported them.')),
  revision: Type.Optional(Type.String({ maxLength: 64, description: 'Revision of the template the host runs (MOD_ACK).' })),
  lastHeardTime: Type.Optional(Timestamp()),
  message: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type OffloadRequestStatus = Static<typeof OffloadRequestStatus>;

export const HostRequestSpec = Type.Object({
  origin: ClusterId,
  app: Type.String({ minLength: 1, maxLength: 253 }),
  component: ComponentName,
  requestId: Type.String({ minLength: 1, maxLength: 256 }),
  resources: Type.Object({ cpu: Quantity(), memory: Quantity() }, { description: 'The reserved slice.' }),
  workload: Type.Optional(Preserved('What to run: template, ports and overrides, as the origin sent them.')),
  revision: Type.Optional(Type.String({ maxLength: 64 })),
  launch: Type.Optional(Type.Boolean({ description: 'The origin said go: its boot dependencies are launched.' })),
  dependencies: Type.Optional(StringMap({ description: 'component -> host:port of what it depends on.' })),
  dependencyPorts: Type.Optional(Type.Unsafe<Record<string, ReachablePort[]>>({ type: 'object', additionalProperties: ReachablePorts('Its ports at the dependency\'s address.'), description: 'component -> every port of what it depends on: a Service of that name is made here.' })),
  leaseSeconds: Type.Integer({ minimum: 1, maximum: 86400 }),
  movable: Type.Optional(Type.Boolean({ description: 'The origin\'s deployment lets reclaim move it once LAUNCHED (spec.movable); otherwise it stays here once launched.' })),
});
export type HostRequestSpec = Static<typeof HostRequestSpec>;

export const HOST_PHASES = ['ACCEPTED', 'SCHEDULED', 'CONNECTED', 'LAUNCHED', 'FAILED'] as const;
export type HostPhase = typeof HOST_PHASES[number];
export const HostRequestStatus = Type.Object({
  phase: Type.Optional(StringEnum(HOST_PHASES)),
  endpoint: Type.Optional(Type.String({ maxLength: 300 })),
  ports: Type.Optional(ReachablePorts('Every port of the component at the endpoint\'s address.')),
  revision: Type.Optional(Type.String({ maxLength: 64, description: 'Revision now running.' })),
  lastRenewTime: Type.Optional(Timestamp({ description: 'When the origin last renewed the lease.' })),
  message: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type HostRequestStatus = Static<typeof HostRequestStatus>;
