// The EdgeDevice reconciler (on EdgeDevice events): read the device afresh from the
// cache, plan its bundle and status, apply what differs, write status once, and clean up through
// a finalizer, since the bundle lives in another namespace and cannot carry an ownerReference.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../../shared/log.ts';
import { ANNOTATION_APPLIED, bundleNames, deviceKey, FINALIZER, type DeviceRef } from '../bundle/names.ts';
import type { BundleKind, KubeWriter } from '../kube-writer.ts';
import type { ReconcileResult } from '../runner.ts';
import { addRequests, candidateNode, type CandidateNode } from '../scheduling/candidates.ts';
import { AssumedPlacements } from '../scheduling/assumed.ts';
import { cpuMillis, parseQuantity } from '../../shared/kube/quantity.ts';
import { AppliedObjects, hashOf } from '../applied.ts';
import { deploymentRecord, type DeploymentRecord, type PodRecord } from '../records.ts';
import { nextStatus, statusChanged } from '../status.ts';
import { HAS_MQTT_TOPIC, type EdgeDevice, type World } from '../world.ts';
import { afterApply, planDevice, type DevicePlan, type PlanSettings } from './plan.ts';
import { isoTime } from '../../shared/time.ts';
import { resyncDelay } from '../resync.ts';
import { hostObjectName } from '../../shared/node-host.ts';
import { configAccessName } from '../bundle/shared.ts';
import { HostPorts } from './host-ports.ts';
import { modeOf } from './mode.ts';

export interface EdgeDeviceReconcilerOptions {
  readonly world: World;
  readonly writer: KubeWriter;
  readonly settings: PlanSettings;
  readonly resyncMs: number;
  readonly heartbeatStaleMs: number;
  readonly nodeSelector?: (labels: Readonly<Record<string, string>>) => boolean;
  readonly now?: () => number;
}

export function parseKey(key: string): DeviceRef {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * How long the candidates may be reused while no Node, EdgeNode or pod changed: their only other
 * input is the clock (a shifud heartbeat turning stale), and staleness is counted in tens of seconds.
 */
const CANDIDATES_REUSE_MS = 1000;

export class EdgeDeviceReconciler {
  private readonly options: EdgeDeviceReconcilerOptions;
  /**
   * The candidates last computed: a resync of 10,000 devices would otherwise build every node's
   * view 167 times a second, ~80 KB of garbage each under the image's flags (steady state).
   */
  private lastCandidates?: { readonly version: number; readonly assumed: number; readonly at: number; readonly nodes: readonly CandidateNode[] };
  /** deviceShifus placed whose pods are not bound yet: counted on their nodes (scheduling/assumed.ts). */
  readonly assumed = new AssumedPlacements();
  /** What one deviceShifu pod requests (the controller's settings). */
  private readonly podRequests: { readonly cpuMillis: number; readonly memory: number };
  /** What this process last applied, per device and object kind: unchanged objects are not written again. */
  private readonly applied = new AppliedObjects();
  /** Ports of shared devices on their nodes' hosts. */
  private readonly ports = new HostPorts();

  constructor(options: EdgeDeviceReconcilerOptions) {
    this.options = options;
    this.podRequests = { cpuMillis: cpuMillis(options.settings.cpuRequest), memory: parseQuantity(options.settings.memoryRequest) };
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  readonly reconcile = async (key: string, log: Logger): Promise<ReconcileResult> => {
    const ref = parseKey(key);
    const device = this.options.world.devices.get(ref.name, ref.namespace);
    if (device === undefined) {
      await this.removeBundle(ref);
      return {};
    }
    if (device.metadata.deletionTimestamp !== undefined) return this.finalize(device, log);
    const live = await this.ensureFinalizer(device);
    // placed again from scratch, not against its own assumption (the cache may not show its
    // Deployment yet, and then nothing gives that back)
    this.assumed.forget(key);
    const observed = this.observe(live);
    const plan = planDevice(observed);
    // before any await: the next reconcile, on another worker, must see this placement's pod
    this.assume(key, plan, observed.pods, observed.mode?.mode === 'shared');
    for (const [kind, namespace, name] of plan.remove ?? []) {
      await this.options.writer.remove(kind, namespace, name);
      log.info({ object: `${kind}/${namespace}/${name}` }, 'removed (left from the other deviceShifu mode)');
    }
    // the queue's key is the cache's key string: the applied-object record keeps it, not a copy
    const applied = await this.applyBundle(key, plan.bundle, log);
    await this.writeStatus(live, afterApply(plan, applied, observed.pods), log);
    return { requeueAfterMs: resyncDelay(key, this.now(), this.options.resyncMs) };
  };

  /** Candidate nodes as the scheduler sees them now. */
  candidates(): readonly CandidateNode[] {
    const now = this.now();
    const version = this.options.world.placementVersion;
    const last = this.lastCandidates;
    const assumed = this.assumed.version;
    if (last?.version === version && last.assumed === assumed && now >= last.at && now - last.at < CANDIDATES_REUSE_MS) return last.nodes;
    const nodes = this.freshCandidates(now);
    this.lastCandidates = { version, assumed, at: now, nodes };
    return nodes;
  }

  /** A deviceShifu pod seen bound to its node: the pod index counts it from now. */
  readonly podBound = (pod: PodRecord): void => {
    if (pod.device !== undefined && pod.node !== undefined && pod.phase !== 'Succeeded' && pod.phase !== 'Failed') this.assumed.bound(pod.device, pod.node);
  };

  /** A dedicated deviceShifu placed on a node its pod is not bound to yet is counted there until it is. */
  private assume(key: string, plan: DevicePlan, pods: readonly PodRecord[], shared: boolean): void {
    const decision = plan.decision;
    const node = decision?.kind === 'placed' && !shared ? decision.node : undefined;
    if (node === undefined || pods.some((p) => p.node === node && p.phase !== 'Succeeded' && p.phase !== 'Failed')) this.assumed.forget(key);
    else this.assumed.assume(key, node, this.podRequests);
  }

  private freshCandidates(now: number): CandidateNode[] {
    const { world, heartbeatStaleMs, nodeSelector, settings } = this.options;
    const context = { now, staleMs: heartbeatStaleMs, requireEdgeNode: world.edgeNodes.size > 0, tolerations: settings.tolerations };
    const candidates: CandidateNode[] = [];
    world.nodes.forEach((n, name) => {
      if (nodeSelector === undefined || nodeSelector(n.metadata?.labels ?? {})) {
        const used = addRequests(world.podIndex.requestsOn(name), this.assumed.on(name));
        candidates.push(candidateNode(n, world.edgeNodes.get(name), used, context));
      }
    });
    return candidates;
  }

  private configMapFacts(device: EdgeDevice): { configMapExists: boolean; configMapHasMqttTopic?: boolean } {
    const configMap = this.options.world.configMaps.get(device.spec.configMapName ?? '', this.options.settings.namespace);
    if (configMap === undefined) return { configMapExists: false };
    return { configMapExists: true, configMapHasMqttTopic: configMap.data?.[HAS_MQTT_TOPIC] === 'true' };
  }

  private observe(device: EdgeDevice): Parameters<typeof planDevice>[0] {
    const { world, settings } = this.options;
    const ref = { name: device.metadata.name ?? '', namespace: device.metadata.namespace ?? '' };
    const names = safeNames(ref);
    const deployment = names && world.deployments.get(names.deployment, settings.namespace);
    const service = names && world.services.get(names.service, settings.namespace);
    const key = deviceKey(ref);
    const shared = service !== undefined && service.device === key ? service.shared : undefined;
    return {
      mode: modeOf(device, settings.mode ?? 'dedicated'),
      ...(shared === undefined ? {} : { shared }),
      hostDeployment: (node) => world.deployments.get(hostObjectName(node), settings.namespace) ?? undefined,
      hostPortOn: (node) => (names === undefined ? undefined : this.ports.portFor({ device: key, service: names.service, namespace: settings.namespace }, node, world.services)),
      device,
      now: this.now(),
      settings,
      nodes: this.candidates(),
      ...this.configMapFacts(device),
      serviceOwner: service === undefined ? undefined : service.device === undefined ? { name: '(not a deviceShifu)', namespace: settings.namespace } : parseKey(service.device),
      deployment: deployment ?? undefined,
      pods: world.podIndex.podsOf(ref),
    };
  }

  private async ensureFinalizer(device: EdgeDevice): Promise<EdgeDevice> {
    const finalizers = device.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER)) return device;
    return this.options.writer.setFinalizers(device, [...finalizers, FINALIZER]);
  }

  private async finalize(device: EdgeDevice, log: Logger): Promise<ReconcileResult> {
    const ref = { name: device.metadata.name ?? '', namespace: device.metadata.namespace ?? '' };
    await this.removeBundle(ref);
    const finalizers = device.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER)) {
      await this.options.writer.setFinalizers(device, finalizers.filter((f) => f !== FINALIZER));
      log.info('deviceShifu removed; finalizer dropped');
    }
    return {};
  }

  private async removeBundle(ref: DeviceRef): Promise<void> {
    const names = safeNames(ref);
    if (names === undefined) return;
    const ns = this.options.settings.namespace;
    const targets: Array<[BundleKind, string, string]> = [
      ['Deployment', ns, names.deployment], ['Service', ns, names.service], ['ServiceAccount', ns, names.serviceAccount],
      ['RoleBinding', ref.namespace, names.role], ['Role', ref.namespace, names.role],
      ['RoleBinding', ns, configAccessName(ref)], ['Role', ns, configAccessName(ref)],
    ];
    const owner = this.options.world.services.get(names.service, ns)?.device;
    for (const [kind, namespace, name] of targets) {
      // never delete a Service that belongs to another device of the same name
      if (kind === 'Service' && owner !== undefined && owner !== deviceKey(ref)) continue;
      await this.options.writer.remove(kind, namespace, name);
    }
    this.applied.forget(deviceKey(ref));
    this.applied.forget(configOwner(deviceKey(ref)));
    this.assumed.forget(deviceKey(ref));
    this.ports.release(deviceKey(ref));
  }

  /** applied.ts's marker of the cached copy of an object this controller applies, when it watches that kind. */
  private observedMarker(object: KubernetesObject): number | string | undefined {
    const { name = '', namespace = '' } = object.metadata ?? {};
    if (object.kind === 'Deployment') return this.options.world.deployments.get(name, namespace)?.generation ?? 'missing';
    if (object.kind === 'Service') return this.options.world.services.get(name, namespace)?.marker ?? 'missing';
    return undefined;
  }

  /** The applied-hash annotation of the cached copy, while only the controller wrote it (records.ts, appliedHash). */
  private cachedHash(object: KubernetesObject): number | undefined {
    const { name = '', namespace = '' } = object.metadata ?? {};
    if (object.kind === 'Deployment') return this.options.world.deployments.get(name, namespace)?.applied;
    if (object.kind === 'Service') return this.options.world.services.get(name, namespace)?.applied;
    return undefined;
  }

  /**
   * Whether a Deployment or Service this process has no record of (it started since) is what it
   * would apply, as its annotation says: then it is recorded, not written again. A restart at
   * 10,000 devices otherwise sends 20,000 applies that change nothing (controller/README.md).
   */
  private adopted(owner: string, object: KubernetesObject, marker: number | string | undefined): boolean {
    const cached = this.cachedHash(object);
    if (cached === undefined || this.applied.has(owner, object.kind ?? '') || cached !== hashOf(object)) return false;
    this.applied.recordWith(owner, object, marker);
    return true;
  }

  /** Whether `object` must be written: not adopted, and new, changed or moved in the cache (applied.ts). */
  private needsWrite(owner: string, object: KubernetesObject): boolean {
    const marker = this.observedMarker(object);
    return !this.adopted(owner, object, marker) && this.applied.needsAgainst(owner, object, marker);
  }

  /** Applies what changed; answers the Deployment as the API server returned it, when it was applied. */
  private async applyBundle(key: string, bundle: readonly KubernetesObject[], log: Logger): Promise<DeploymentRecord | undefined> {
    if (bundle.length === 0) return undefined;
    let deployment: DeploymentRecord | undefined;
    // one object of each kind per bundle
    for (const object of bundle) {
      const owner = object.metadata?.name?.endsWith('.config') === true ? configOwner(key) : key;
      if (!this.needsWrite(owner, object)) continue;
      const first = !this.applied.has(owner, object.kind ?? '');
      const result = await this.options.writer.apply(withAppliedHash(object));
      if (object.kind === 'Deployment') deployment = deploymentRecord(result, this.options.world.strings);
      this.applied.record(owner, object, result);
      const id = `${object.kind ?? ''}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
      log.info({ object: id }, first ? 'applied' : 'reapplied (changed, or edited by hand)');
    }
    return deployment;
  }

  private async writeStatus(device: EdgeDevice, plan: DevicePlan, log: Logger): Promise<void> {
    const generation = device.metadata.generation ?? 0;
    const next = nextStatus(device.status, plan.view, generation, isoTime(this.now()));
    if (!statusChanged(device.status, next)) return;
    await this.options.writer.patchStatus(device, next);
    const old = device.status?.conditions?.find((c) => c.type === 'Scheduled');
    const scheduled = plan.view.scheduled;
    if (old?.reason !== scheduled.reason || old.message !== scheduled.message) {
      const warning = scheduled.status !== 'True';
      await this.options.writer.event(device, warning ? 'Warning' : 'Normal', scheduled.reason, scheduled.message);
      log.info({ reason: scheduled.reason, message: scheduled.message }, 'placement decision');
    }
  }
}

/** A Deployment or Service as sent: with the hash of what is applied (the hash of the object without it). */
function withAppliedHash(object: KubernetesObject): KubernetesObject {
  if (object.kind !== 'Deployment' && object.kind !== 'Service') return object;
  const annotations = { ...object.metadata?.annotations, [ANNOTATION_APPLIED]: hashOf(object).toString(36) };
  const metadata = object.metadata as Record<string, unknown> | undefined;
  return { ...object, metadata: { ...metadata, annotations } };
}

/** The applied-object record of a shared device's ConfigMap Role and RoleBinding (one of each kind per record). */
function configOwner(key: string): string {
  return `${key}.config`;
}

function safeNames(ref: DeviceRef): ReturnType<typeof bundleNames> | undefined {
  try {
    return bundleNames(ref);
  } catch {
    return undefined;
  }
}
