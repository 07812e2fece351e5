// The plain data DRONE decides over (REFERENCE §3): clusters, resources, jobs made of components.
// Units: cpu in millicores, memory in MiB (numbers, so shares like 3.33 CPU stay exact enough).
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId } from '../../shared/bus/envelope.ts';

export { ClusterId };

export const Name = Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$' });

export const Resources = Type.Object({
  cpu: Type.Number({ minimum: 0, description: 'millicores' }),
  memory: Type.Number({ minimum: 0, description: 'MiB' }),
}, { additionalProperties: false });
export type Resources = Static<typeof Resources>;

export const Component = Type.Object({
  name: Name,
  image: Type.String({ minLength: 1, maxLength: 1024 }),
  resources: Resources,
  parameters: Type.Optional(Type.Record(Type.String(), Type.String())),
  bootDependencies: Type.Optional(Type.Array(Name, { maxItems: 64 })),
  clustersBlacklist: Type.Optional(Type.Array(ClusterId, { maxItems: 256, description: 'Clusters that must not host it (thesis nodes-blacklist).' })),
  clustersWhitelist: Type.Optional(Type.Array(ClusterId, { maxItems: 256, description: 'When set, only these clusters may host it (thesis nodes-whitelist).' })),
  /** What Kubernetes runs for it (issue 8); opaque to the auction, validated by the host. */
  workload: Type.Optional(Type.Unknown()),
}, { additionalProperties: false });
export type Component = Static<typeof Component>;

/** An application of one or more components, submitted at its origin cluster. */
export const Job = Type.Object({
  app: Name,
  origin: ClusterId,
  components: Type.Array(Component, { minItems: 1, maxItems: 64 }),
  /** Offload even when the origin could host it (the job asks for it). */
  offload: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type Job = Static<typeof Job>;

export const ZERO: Resources = { cpu: 0, memory: 0 };
const EPSILON = 1e-9;

export function add(a: Resources, b: Resources): Resources {
  return { cpu: a.cpu + b.cpu, memory: a.memory + b.memory };
}

export function subtract(a: Resources, b: Resources): Resources {
  return { cpu: a.cpu - b.cpu, memory: a.memory - b.memory };
}

export function atLeastZero(a: Resources): Resources {
  return { cpu: Math.max(0, a.cpu), memory: Math.max(0, a.memory) };
}

export function fits(need: Resources, room: Resources): boolean {
  return need.cpu <= room.cpu + EPSILON && need.memory <= room.memory + EPSILON;
}

export function sum(items: Iterable<Resources>): Resources {
  let total = ZERO;
  for (const r of items) total = add(total, r);
  return total;
}

export function scale(r: Resources, percent: number): Resources {
  return { cpu: (r.cpu * percent) / 100, memory: (r.memory * percent) / 100 };
}

export function isZero(r: Resources): boolean {
  return r.cpu <= EPSILON && r.memory <= EPSILON;
}

/** Whether the component's white/black lists let `cluster` host it. */
export function allows(component: Component, cluster: string): boolean {
  if (component.clustersBlacklist?.includes(cluster) === true) return false;
  return component.clustersWhitelist === undefined || component.clustersWhitelist.length === 0 || component.clustersWhitelist.includes(cluster);
}

/** Key of one component of one app, used in maps. */
export function componentKey(app: string, component: string): string {
  return `${app}/${component}`;
}
