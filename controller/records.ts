// What the controller caches of each watched object: one compact record, made at the informer
// boundary so the decoded object is dropped at once (footprint: 10,000 devices under
// 100 MB). Each record holds exactly what a reader uses: planning (reconcile/plan.ts), the pod
// index and placement (scheduling/), the record of applied objects (applied.ts) and DRONE's
// capacity (offload/manager.ts reads pods through PodRecord's V1Pod view). Pure.
import type { V1Container, V1Deployment, V1ManagedFieldsEntry, V1ObjectMeta, V1Pod, V1PodSpec, V1PodStatus, V1Service } from '@kubernetes/client-node';
import type { EdgeDevice } from './world.ts';
import { appliedField, serviceMarker, type AppliedRecord } from './applied.ts';
import { placedNode } from './bundle/deployment.ts';
import { ANNOTATION_PLACED_AT, ANNOTATION_PLACEMENT_REASON, deviceOf } from './bundle/names.ts';
import { podRequests } from './scheduling/candidates.ts';
import { CARRIED_FOR_LABEL, HOSTED_FOR_LABEL } from './drone/slicing/kube-input.ts';
import { sharedPlacement, type SharedPlacement } from './shared-placement.ts';
import { ANNOTATION_MODE } from '../shared/node-host.ts';

/**
 * Repeated strings kept once. JSON.parse makes a fresh copy of every value, so 10,000 pods spell
 * their node's name and namespace 10,000 times; the pool holds only names drawn from small sets
 * (nodes, namespaces, phases, condition vocabulary), never per-object ones.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();
  private readonly lists = new Map<string, readonly string[]>();
  private readonly limit: number;
  /** The keys of the EdgeDevices cached: per-object strings, so not in the pool itself. */
  readonly deviceKeys = new DeviceKeys();

  /** `limit` bounds what the pool keeps when its strings are not drawn from a small set (messages). */
  constructor(limit = Infinity) {
    this.limit = limit;
  }

  intern<S extends string | undefined>(value: S): S {
    if (value === undefined) return value;
    const known = this.strings.get(value);
    if (known !== undefined) return known as S;
    if (this.strings.size < this.limit) this.strings.set(value, value);
    return value;
  }

  /** A list of pooled strings (finalizers), one frozen copy per distinct list. */
  internList(values: readonly string[]): string[] {
    const id = values.join('\n');
    let known = this.lists.get(id);
    if (known === undefined) {
      known = Object.freeze(values.map((v) => this.intern(v)));
      if (this.lists.size < this.limit) this.lists.set(id, known);
    }
    // frozen: readers copy before they change a list (ensureFinalizer, finalize)
    return known as string[];
  }

  get size(): number {
    return this.strings.size;
  }
}

/**
 * One string per EdgeDevice key. Every deviceShifu Deployment, Service and pod record names its
 * device, and JSON spells that key afresh for each: 4.4 copies per device in a heap snapshot of
 * the controller at 3,000 devices. The EdgeDevice informer's own key is held while the device is
 * cached, and records take that copy; a record whose device is not cached keeps its own.
 */
export class DeviceKeys {
  private readonly keys = new Map<string, string>();

  /** Holds `key` (the first copy given stays the one shared). */
  hold(key: string): void {
    if (!this.keys.has(key)) this.keys.set(key, key);
  }

  release(key: string): void {
    this.keys.delete(key);
  }

  /** The held copy of `key`, or `key` itself. */
  shared(key: string): string {
    return this.keys.get(key) ?? key;
  }

  get size(): number {
    return this.keys.size;
  }
}

const keyOf = (ref: { name: string; namespace: string }, keys: DeviceKeys): string => keys.shared([ref.namespace, ref.name].join('/'));

/** Small enough to be an immediate value in V8 (no heap object) on any build. */
const SMALL = 2 ** 30 - 1;

/**
 * A resourceVersion as kept: opaque to clients, but in practice a decimal counter, which then costs
 * nothing as a small integer (a string costs ~32 bytes per record); any other spelling stays as it is.
 */
export function compactVersion(resourceVersion: string | undefined): string | number | undefined {
  if (resourceVersion === undefined || !/^[1-9]\d{0,9}$/.test(resourceVersion)) return resourceVersion;
  const n = Number(resourceVersion);
  return n <= SMALL ? n : resourceVersion;
}

/**
 * True when a record's new version differs from the previous one in its resourceVersion only:
 * nothing a reader uses changed (records hold exactly what readers use), so the owner need not be
 * reconciled again. Kubernetes writes status heartbeats and conditions that records leave out.
 */
export function sameButVersion(record: object, previous: object | undefined): boolean {
  if (previous === undefined) return false;
  const a = record as Record<string, unknown>;
  const b = previous as Record<string, unknown>;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k === 'resourceVersion' || Object.is(a[k], b[k]));
}

/** The resourceVersion of a record, as the informer compares it. */
export function versionOf(record: { readonly resourceVersion: string | number | undefined }): string | undefined {
  return record.resourceVersion === undefined ? undefined : String(record.resourceVersion);
}

/**
 * A pod as the scheduler's arithmetic and readiness need it: where, how much, its phase, why the
 * scheduler refused it, and the device whose deviceShifu it runs. About 0.2 KB against 1.1 KB for
 * the slimmed V1Pod it replaces. The getters give DRONE's capacity code the V1Pod shape it reads,
 * built on demand (prototype methods: no memory per record).
 */
export class PodRecord {
  readonly key: string;
  readonly resourceVersion: string | number | undefined;
  readonly node: string | undefined;
  readonly cpuMillis: number;
  readonly memory: number;
  readonly phase: string | undefined;
  /** The scheduler's message while PodScheduled is False; undefined otherwise. */
  readonly unschedulable: string | undefined;
  /** `namespace/name` of the EdgeDevice whose deviceShifu this is; undefined for other pods. */
  readonly device: string | undefined;
  readonly hostedFor: string | undefined;

  constructor(fields: Omit<PodRecord, 'metadata' | 'spec' | 'status'>) {
    this.key = fields.key;
    this.resourceVersion = fields.resourceVersion;
    this.node = fields.node;
    this.cpuMillis = fields.cpuMillis;
    this.memory = fields.memory;
    this.phase = fields.phase;
    this.unschedulable = fields.unschedulable;
    this.device = fields.device;
    this.hostedFor = fields.hostedFor;
  }

  get metadata(): V1ObjectMeta {
    const slash = this.key.indexOf('/');
    return { namespace: this.key.slice(0, slash), name: this.key.slice(slash + 1), resourceVersion: versionOf(this),
      ...(this.hostedFor === undefined ? {} : { labels: { [HOSTED_FOR_LABEL]: this.hostedFor } }) };
  }

  get spec(): V1PodSpec {
    const container: V1Container = { name: 'requests', resources: { requests: { cpu: `${String(this.cpuMillis)}m`, memory: String(this.memory) } } };
    return { nodeName: this.node, containers: [container] };
  }

  get status(): V1PodStatus {
    return { phase: this.phase };
  }
}

/**
 * Pods in `deviceShifuNamespace` labelled with a device are that device's deviceShifu pods. `key`
 * is the informer's own key string for the pod, kept rather than spelled again.
 */
export function podRecord(pod: V1Pod, deviceShifuNamespace: string, pool: StringPool, key?: string): PodRecord {
  const metadata = pod.metadata ?? {};
  const namespace = metadata.namespace ?? '';
  const owner = namespace === deviceShifuNamespace ? deviceOf(metadata.labels) : undefined;
  const requests = podRequests(pod);
  return new PodRecord({
    key: key ?? [namespace, metadata.name ?? ''].join('/'),
    resourceVersion: compactVersion(metadata.resourceVersion),
    node: pool.intern(pod.spec?.nodeName),
    cpuMillis: requests.cpuMillis,
    memory: requests.memory,
    phase: pool.intern(pod.status?.phase),
    unschedulable: refusal(pod),
    device: owner === undefined ? undefined : keyOf(owner, pool.deviceKeys),
    hostedFor: pool.intern(metadata.labels?.[HOSTED_FOR_LABEL] ?? metadata.labels?.[CARRIED_FOR_LABEL]), // a REAR buyer's carried pod: its contract holds it
  });
}

/** The scheduler's words while PodScheduled is False. */
function refusal(pod: V1Pod): string | undefined {
  const refused = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  return refused === undefined ? undefined : refused.message ?? refused.reason ?? '';
}

/**
 * A deviceShifu Deployment as the reconciler reads it: its owner, where it is pinned, the
 * placement annotations, generation (hand edits, and the applied-object marker) and availability.
 */
export interface DeploymentRecord extends AppliedRecord {
  readonly resourceVersion: string | number | undefined;
  /** `namespace/name` of the EdgeDevice it serves (labels); undefined when not a deviceShifu's. */
  readonly device: string | undefined;
  readonly node: string | undefined;
  readonly placedAt: string | undefined;
  readonly placementReason: string | undefined;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly availableReplicas: number;
}

export function deploymentRecord(deployment: V1Deployment, pool: StringPool, managedFields?: readonly V1ManagedFieldsEntry[]): DeploymentRecord {
  const { metadata, status } = deployment;
  const owner = deviceOf(metadata?.labels);
  return {
    resourceVersion: compactVersion(metadata?.resourceVersion),
    device: owner === undefined ? undefined : keyOf(owner, pool.deviceKeys),
    node: pool.intern(placedNode(deployment)),
    placedAt: metadata?.annotations?.[ANNOTATION_PLACED_AT],
    // the scheduler's words ("most free memory (64Gi)") repeat across devices
    placementReason: messagesOf(pool).intern(metadata?.annotations?.[ANNOTATION_PLACEMENT_REASON]),
    generation: metadata?.generation ?? 0,
    observedGeneration: status?.observedGeneration ?? 0,
    availableReplicas: status?.availableReplicas ?? 0,
    ...appliedField(metadata, managedFields),
  };
}

/** A Service as the reconciler compares it: its owner, and a hash of what a hand edit changes. */
export interface ServiceRecord extends AppliedRecord {
  readonly resourceVersion: string | number | undefined;
  /** `namespace/name` of the EdgeDevice it serves; undefined when not a deviceShifu's. */
  readonly device: string | undefined;
  /** applied.ts's marker of the Service: ports, selector, type, external name. */
  readonly marker: number;
  /** Set when the device is served by its node's shared host: where, on which port, and since when. */
  readonly shared?: SharedPlacement;
}

export function serviceRecord(service: V1Service, pool: StringPool, managedFields?: readonly V1ManagedFieldsEntry[]): ServiceRecord {
  const owner = deviceOf(service.metadata?.labels);
  const shared = sharedPlacement(service, pool, messagesOf(pool));
  return { resourceVersion: compactVersion(service.metadata?.resourceVersion), device: owner === undefined ? undefined : keyOf(owner, pool.deviceKeys), marker: serviceMarker(service),
    ...appliedField(service.metadata, managedFields), ...(shared === undefined ? {} : { shared }) };
}

/**
 * An EdgeDevice as planning, status comparison and the edgeMap read it: metadata down to what
 * the writes need (name, namespace, uid for Events, resourceVersion, generation, finalizers,
 * deletion), spec and status whole (the status patch and deviceShifu's own fields are kept as
 * they are), repeated strings interned.
 */
export function slimEdgeDevice(device: EdgeDevice, pool: StringPool, key?: string): EdgeDevice {
  const { metadata, spec, status } = device;
  // the informer's key for it, which deviceShifu records then share (DeviceKeys)
  if (key !== undefined) pool.deviceKeys.hold(key);
  const slim: EdgeDevice = {
    apiVersion: pool.intern(device.apiVersion), kind: pool.intern(device.kind),
    metadata: { name: metadata.name, namespace: pool.intern(metadata.namespace), uid: metadata.uid, resourceVersion: metadata.resourceVersion, generation: metadata.generation },
    spec: { ...spec, protocol: pool.intern(spec.protocol) },
  };
  // absent stays absent: a key set to undefined would show in comparisons and copies
  if (metadata.deletionTimestamp !== undefined) slim.metadata.deletionTimestamp = metadata.deletionTimestamp;
  if (metadata.finalizers !== undefined) slim.metadata.finalizers = pool.internList(metadata.finalizers);
  // of the annotations, only the deviceShifu mode is read (reconcile/mode.ts)
  const mode = metadata.annotations?.[ANNOTATION_MODE];
  if (mode !== undefined) slim.metadata.annotations = { [ANNOTATION_MODE]: pool.intern(mode) };
  if (spec.configMapName !== undefined) slim.spec.configMapName = pool.intern(spec.configMapName);
  if (spec.attachedNode !== undefined) slim.spec.attachedNode = pool.intern(spec.attachedNode);
  if (status !== undefined) slim.status = internStatus(status, pool);
  return slim;
}

/**
 * Messages name a node and a free-memory figure, so they repeat across devices without being drawn
 * from a small set: a bounded pool keeps the first few thousand (at most ~0.5 MB), which covers a
 * cluster's usual "available on <node>" and placement messages.
 */
const MESSAGE_POOL_LIMIT = 4096;

const messagePools = new WeakMap<StringPool, StringPool>();

function messagesOf(pool: StringPool): StringPool {
  let messages = messagePools.get(pool);
  if (messages === undefined) messagePools.set(pool, messages = new StringPool(MESSAGE_POOL_LIMIT));
  return messages;
}

function internStatus(status: NonNullable<EdgeDevice['status']>, pool: StringPool): NonNullable<EdgeDevice['status']> {
  const messages = messagesOf(pool);
  // a device's conditions usually changed in the same write: one timestamp string for all of them
  let lastTime: string | undefined;
  const sameTime = (time: string): string => (lastTime = time === lastTime ? lastTime : time);
  return {
    ...status,
    ...(status.nodeName === undefined ? {} : { nodeName: pool.intern(status.nodeName) }),
    ...(status.conditions === undefined ? {} : {
      conditions: status.conditions.map((c) => ({ ...c, type: pool.intern(c.type), status: pool.intern(c.status), reason: pool.intern(c.reason),
        message: messages.intern(c.message), lastTransitionTime: sameTime(c.lastTransitionTime) })),
    }),
  };
}
