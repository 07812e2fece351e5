// The plain data DRONE decides over: clusters, resources, jobs made of components.
// Units: cpu in millicores, memory in MiB (numbers, so shares like 3.33 CPU stay exact enough),
// pods a count (a node takes at most its allocatable `pods`, a kubelet's 110 by default).
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Recipients } from '../../shared/bus/envelope.ts';

export { ClusterId, Recipients };

export const Name = Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$' });

/**
 * `pods` is optional so that agents older than pod slicing still interoperate: in a capacity (a
 * slice advert, free, a share) its absence means "not limited by pods"; in a need (a component's
 * resources) it means no pod is counted. edgeshifu's own components always carry it (one pod per
 * replica), and its capacities carry it whenever the nodes report allocatable pods.
 */
export const Resources = Type.Object({
  cpu: Type.Number({ minimum: 0, description: 'millicores' }),
  memory: Type.Number({ minimum: 0, description: 'MiB' }),
  pods: Type.Optional(Type.Integer({ minimum: 0, description: 'pod count; absent: not limited by pods (capacity) or none counted (need)' })),
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
  /** What Kubernetes runs for it; opaque to the auction, validated by the host. */
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

export const ZERO: Resources = { cpu: 0, memory: 0, pods: 0 };
const EPSILON = 1e-9;

/** Pods of a capacity with `pods` set (absent: not limited, and it stays absent). */
function withPods(r: Resources, pods: number | undefined): Resources {
  return pods === undefined ? { cpu: r.cpu, memory: r.memory } : { cpu: r.cpu, memory: r.memory, pods };
}

/** Adds needs (absent pods count as none; the sum has no pods only when neither has). */
export function add(a: Resources, b: Resources): Resources {
  const pods = a.pods === undefined && b.pods === undefined ? undefined : (a.pods ?? 0) + (b.pods ?? 0);
  return withPods({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory }, pods);
}

/** What is left of capacity `a` once need `b` is taken: a capacity not limited by pods stays so. */
export function subtract(a: Resources, b: Resources): Resources {
  return withPods({ cpu: a.cpu - b.cpu, memory: a.memory - b.memory }, a.pods === undefined ? undefined : a.pods - (b.pods ?? 0));
}

export function atLeastZero(a: Resources): Resources {
  return withPods({ cpu: Math.max(0, a.cpu), memory: Math.max(0, a.memory) }, a.pods === undefined ? undefined : Math.max(0, a.pods));
}

/** The smaller of two capacities in each resource (absent pods: the other's). */
export function least(a: Resources, b: Resources): Resources {
  const pods = a.pods === undefined ? b.pods : b.pods === undefined ? a.pods : Math.min(a.pods, b.pods);
  return withPods({ cpu: Math.min(a.cpu, b.cpu), memory: Math.min(a.memory, b.memory) }, pods);
}

/** Whether `need` fits in `room`: cpu, memory and, when the room counts them, pods (a need without pods takes none). */
export function fits(need: Resources, room: Resources): boolean {
  return need.cpu <= room.cpu + EPSILON && need.memory <= room.memory + EPSILON && (room.pods === undefined || (need.pods ?? 0) <= room.pods + EPSILON);
}

/** The resources in which `need` does not fit `room`, named for a reason ("pods", "cpu"...). */
export function shortOf(need: Resources, room: Resources): string[] {
  const short: string[] = [];
  if (need.cpu > room.cpu + EPSILON) short.push('cpu');
  if (need.memory > room.memory + EPSILON) short.push('memory');
  if (room.pods !== undefined && (need.pods ?? 0) > room.pods + EPSILON) short.push('pods');
  return short;
}

export function sum(items: Iterable<Resources>): Resources {
  let total = ZERO;
  for (const r of items) total = add(total, r);
  return total;
}

/** `percent` of a capacity; pods stay whole (floor: a slice never offers a pod the node lacks). */
export function scale(r: Resources, percent: number): Resources {
  return withPods({ cpu: (r.cpu * percent) / 100, memory: (r.memory * percent) / 100 }, r.pods === undefined ? undefined : Math.floor((r.pods * percent) / 100 + EPSILON));
}

/** Every resource zero (absent pods count as zero). */
export function isZero(r: Resources): boolean {
  return r.cpu <= EPSILON && r.memory <= EPSILON && (r.pods ?? 0) <= EPSILON;
}

/** A capacity that can hold no component: no cpu and memory, or no pod left. */
export function isEmpty(r: Resources): boolean {
  return (r.cpu <= EPSILON && r.memory <= EPSILON) || (r.pods !== undefined && r.pods < 1 - EPSILON);
}

/** Same capacity, to the micro-unit (an advert goes out only when it changed). */
export function sameResources(a: Resources | undefined, b: Resources): boolean {
  return a !== undefined && Math.abs(a.cpu - b.cpu) < 1e-6 && Math.abs(a.memory - b.memory) < 1e-6 && a.pods === b.pods;
}

/** "cpu 250m, memory 128Mi, 1 pod" for reasons and logs. */
export function describeResources(r: Resources): string {
  const pods = r.pods === undefined ? '' : `, ${r.pods} pod${r.pods === 1 ? '' : 's'}`;
  return `cpu ${r.cpu}m, memory ${r.memory}Mi${pods}`;
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
