// Observe → plan → apply: what one EdgeDevice's deviceShifu bundle and status
// should be, computed from what the caches hold. Pure: every input is plain data.
import type { KubernetesObject } from '@kubernetes/client-node';
import { EdgeshifuError } from '../../shared/errors.ts';
import { cpuMillis, parseQuantity } from '../../shared/kube/quantity.ts';
import { deviceShifuRole, deviceShifuRoleBinding, deviceShifuServiceAccount } from '../bundle/access.ts';
import { deviceShifuDeployment, type BundleSettings } from '../bundle/deployment.ts';
import { bundleNames, type DeviceRef } from '../bundle/names.ts';
import { deviceShifuService, deviceShifuUrl, type ServiceType } from '../bundle/service.ts';
import { configAccessName, sharedDeviceObjects } from '../bundle/shared.ts';
import type { BundleKind } from '../kube-writer.ts';
import type { SharedPlacement } from '../shared-placement.ts';
import type { DeviceShifuMode } from '../../shared/node-host.ts';
import type { ModeDecision } from './mode.ts';
import type { CandidateNode } from '../scheduling/candidates.ts';
import { place, type PlacementDecision, type PlacementPolicy, type PlacementRequest } from '../scheduling/placement.ts';
import type { DeploymentRecord, PodRecord } from '../records.ts';
import type { ConditionInput, ControllerView } from '../status.ts';
import type { EdgeDevice } from '../world.ts';
import { isoTime } from '../../shared/time.ts';
import { isDevPath, rtuSerialPath } from '../../shared/crds/modbus-setting.ts';

export interface PlanSettings extends Omit<BundleSettings, 'image'> {
  /** The deviceShifu image for a protocol (controller configuration). */
  readonly imageFor: (protocol: string) => string;
  readonly serviceType: ServiceType;
  readonly policy: PlacementPolicy;
  /** The cluster's default: a deviceShifu per device, or one shared host per node. */
  readonly mode?: DeviceShifuMode;
}

export interface PlanInput {
  readonly device: EdgeDevice;
  readonly now: number;
  readonly settings: PlanSettings;
  readonly nodes: readonly CandidateNode[];
  readonly configMapExists: boolean;
  /** Whether the device's ConfigMap names an MQTTTopic in its instructions; undefined when unknown. */
  readonly configMapHasMqttTopic?: boolean;
  /** The device whose Service already bears this device's Service name, if any. */
  readonly serviceOwner?: DeviceRef;
  readonly deployment?: DeploymentRecord;
  readonly pods: readonly PodRecord[];
  /** Dedicated unless said otherwise. */
  readonly mode?: ModeDecision;
  /** Where the device's Service says the shared host serves it, if it does. */
  readonly shared?: SharedPlacement;
  /** The shared host's Deployment on a node, as cached. */
  readonly hostDeployment?: (node: string) => DeploymentRecord | undefined;
  /** The device's port on a node's shared host (held for it once given); undefined when none is free. */
  readonly hostPortOn?: (node: string) => number | undefined;
}

export type Removal = readonly [BundleKind, string, string];

export interface DevicePlan {
  readonly view: ControllerView;
  /** Objects to apply, in order; none when the device cannot be served now. */
  readonly bundle: readonly KubernetesObject[];
  readonly decision?: PlacementDecision;
  /** Where applications reach it, once placed. */
  readonly url?: string;
  /** Objects of the other mode, left from before the device switched. */
  readonly remove?: readonly Removal[];
}

const condition = (type: string, status: ConditionInput['status'], reason: string, message: string): ConditionInput => ({ type, status, reason, message });

function blocked(reason: string, message: string, phase: 'Pending' | 'Failed' = 'Pending'): DevicePlan {
  return {
    view: {
      scheduled: condition('Scheduled', 'False', reason, message),
      bundleReady: condition('BundleReady', 'False', reason, message),
      phase,
    },
    bundle: [],
  };
}

function refOf(device: EdgeDevice): DeviceRef {
  return { name: device.metadata.name ?? '', namespace: device.metadata.namespace ?? '' };
}

/** Why the device cannot be served at all, before placement; undefined when it can. */
function precondition(input: PlanInput): DevicePlan | undefined {
  const ref = refOf(input.device);
  try {
    bundleNames(ref);
  } catch (err) {
    return blocked('InvalidName', err instanceof EdgeshifuError ? err.message : String(err), 'Failed');
  }
  const configMap = input.device.spec.configMapName;
  if (configMap === undefined || configMap === '') {
    return blocked('ConfigMapNotSet', `set spec.configMapName to the ConfigMap in namespace ${input.settings.namespace} that holds driverProperties, instructions and telemetries`);
  }
  if (!input.configMapExists) return blocked('ConfigMapNotFound', `ConfigMap ${input.settings.namespace}/${configMap} does not exist: create it (it is mounted at /etc/edgedevice/config)`);
  const mqtt = input.device.spec.protocol === 'MQTT' && (input.device.spec.protocolSettings?.MQTTSetting?.MQTTTopic ?? '') === '';
  if (mqtt && input.configMapHasMqttTopic === false) {
    return blocked('MQTTTopicMissing', `an MQTT device needs a topic to read and publish: set spec.protocolSettings.MQTTSetting.MQTTTopic, or protocolPropertyList.MQTTTopic on its instructions in ConfigMap ${input.settings.namespace}/${configMap}`);
  }
  const owner = input.serviceOwner;
  if (owner !== undefined && (owner.name !== ref.name || owner.namespace !== ref.namespace)) {
    return blocked('NameConflict', `deviceShifu name ${ref.name} is taken by EdgeDevice ${owner.namespace}/${owner.name}: rename one of them`);
  }
  return undefined;
}

/** The CRD's rule refuses such a path at admission; an object stored before that rule still gets told. */
function serialPathProblem(device: EdgeDevice): DevicePlan | undefined {
  const path = rtuSerialPath(device.spec);
  if (path === undefined || isDevPath(path)) return undefined;
  return blocked('InvalidSerialPath', `spec.protocolSettings.ModbusSetting.serialPath "${path}" must be an absolute path under /dev naming the serial device, e.g. /dev/ttyUSB0`, 'Failed');
}

/** BundleReady from the Deployment and its pods. */
function readiness(deployment: DeploymentRecord | undefined, node: string, pods: readonly PodRecord[]): ConditionInput {
  const unschedulable = pods.find((p) => p.unschedulable !== undefined)?.unschedulable;
  if (deployment === undefined) return condition('BundleReady', 'False', 'Creating', 'creating the deviceShifu Deployment and Service');
  const current = deployment.observedGeneration >= deployment.generation && deployment.node === node;
  if (current && deployment.availableReplicas >= 1) return condition('BundleReady', 'True', 'Available', `deviceShifu is available on ${node}`);
  if (unschedulable !== undefined) return condition('BundleReady', 'False', 'Unschedulable', `node ${node} cannot take the deviceShifu: ${unschedulable}`);
  return condition('BundleReady', 'False', 'Progressing', `waiting for the deviceShifu on ${node} to become available`);
}

/** Where the device was placed before, whichever mode placed it. */
interface Placed {
  readonly node: string | undefined;
  readonly placedAt: string | undefined;
  readonly placementReason: string | undefined;
}

function placedAt(deployment: Placed | undefined, node: string, now: number): string {
  const previous = deployment?.placedAt;
  return deployment?.node === node && previous !== undefined ? previous : isoTime(now);
}

/**
 * Why the node was chosen, as said when it was: the free-memory figure in a fresh reason changes
 * as pods come and go, and would rewrite an unmoved Deployment on every resync.
 */
function placementReason(deployment: Placed | undefined, node: string, reason: string): string {
  const previous = deployment?.placementReason;
  return deployment?.node === node && previous !== undefined ? previous : reason;
}

export function planDevice(input: PlanInput): DevicePlan {
  const early = precondition(input) ?? serialPathProblem(input.device);
  if (early !== undefined) return early;
  const { device, settings, now } = input;
  const shared = input.mode?.mode === 'shared';
  const previous = previousPlacement(input);
  const currentNode = previous?.node;
  const decision = place(placementRequest(input, previous), input.nodes, settings.policy, now);

  if (decision.kind === 'unknown') {
    return { decision, bundle: [], view: {
      scheduled: condition('Scheduled', 'False', decision.reason, decision.message),
      bundleReady: condition('BundleReady', 'False', decision.reason, decision.message),
      nodeName: currentNode, phase: 'Unknown' } };
  }
  if (decision.kind === 'pending') return { ...blocked(decision.reason, decision.message), decision };

  const placement = { node: decision.node, placedAt: placedAt(previous, decision.node, now), reason: placementReason(previous, decision.node, decision.reason) };
  const served = shared ? sharedBundle(input, placement) : dedicatedBundle(input, placement);
  if (served === undefined) return { ...blocked('NoHostPort', `the shared host on ${decision.node} has no port left for another device`), decision };
  const bundleReady = readiness(decision.moved ? undefined : served.readinessOf, decision.node, shared ? [] : input.pods);
  const scheduled = condition('Scheduled', 'True', decision.moved ? 'Rescheduled' : 'NodeChosen', `on ${decision.node}${servedBy(input)}: ${decision.reason}`);
  return {
    decision,
    bundle: served.bundle,
    remove: served.remove,
    url: deviceShifuUrl({ ...refOf(device), spec: device.spec }, settings.namespace),
    view: {
      scheduled: keptMessage(device, scheduled, decision.node),
      bundleReady,
      nodeName: decision.node,
      phase: bundleReady.status === 'True' ? undefined : 'Pending',
    },
  };
}

function placementRequest(input: PlanInput, previous: Placed | undefined): PlacementRequest {
  const { device, settings } = input;
  const serialPath = rtuSerialPath(device.spec);
  const at = previous?.placedAt;
  return {
    attachedNode: device.spec.attachedNode,
    location: device.spec.location,
    cpuMillis: cpuMillis(settings.cpuRequest),
    memory: parseQuantity(settings.memoryRequest),
    current: previous?.node === undefined ? undefined : { node: previous.node, placedAt: at === undefined ? 0 : Date.parse(at) },
    ...(serialPath === undefined ? {} : { serialPort: { path: serialPath, device: `${device.metadata.namespace ?? ''}/${device.metadata.name ?? ''}` } }),
  };
}

/** Where the device was placed before; a device switching modes stays where it is. */
function previousPlacement(input: PlanInput): Placed | undefined {
  return input.mode?.mode === 'shared' ? (input.shared ?? input.deployment) : (input.deployment ?? input.shared);
}

function servedBy(input: PlanInput): string {
  if (input.mode?.mode === 'shared') return ', served by the node\'s shared host';
  return input.mode?.kept === undefined ? '' : ` (${input.mode.kept})`;
}

interface Served {
  readonly bundle: KubernetesObject[];
  readonly remove: Removal[];
  /** What BundleReady is read from. */
  readonly readinessOf: DeploymentRecord | undefined;
}

function dedicatedBundle(input: PlanInput, placement: { node: string; placedAt: string; reason: string }): Served {
  const { device, settings } = input;
  const ref = refOf(device);
  const ns = settings.namespace;
  const config = configAccessName(ref);
  return {
    bundle: [
      deviceShifuServiceAccount(ref, ns),
      deviceShifuRole(ref),
      deviceShifuRoleBinding(ref, ns),
      deviceShifuDeployment({ ...ref, spec: device.spec }, device.spec.configMapName ?? '', placement, { ...settings, image: settings.imageFor(device.spec.protocol) }),
      deviceShifuService({ ...ref, spec: device.spec }, ns, settings.serviceType),
    ],
    // the host's right to read the ConfigMap, left from when the device was shared
    remove: input.shared === undefined ? [] : [['RoleBinding', ns, config], ['Role', ns, config]],
    readinessOf: input.deployment,
  };
}

function sharedBundle(input: PlanInput, placement: { node: string; placedAt: string; reason: string }): Served | undefined {
  const { device, settings } = input;
  const ref = refOf(device);
  const port = input.hostPortOn?.(placement.node);
  if (port === undefined) return undefined;
  const names = bundleNames(ref);
  const bundle = sharedDeviceObjects({ device: { ...ref, spec: device.spec }, configMap: device.spec.configMapName ?? '', placement, port, namespace: settings.namespace, serviceType: settings.serviceType });
  const host = input.hostDeployment?.(placement.node);
  return {
    bundle,
    // the dedicated deviceShifu, left from when the device had one
    remove: input.deployment === undefined ? [] : [['Deployment', settings.namespace, names.deployment], ['ServiceAccount', settings.namespace, names.serviceAccount]],
    readinessOf: host?.node === placement.node ? host : undefined,
  };
}

/**
 * The plan once its Deployment has been applied in this pass: BundleReady read from what the API
 * server answered, rather than "Creating", which would be stale by the time it was written and cost
 * each new device one more status write (controller/README.md, Benchmark).
 */
export function afterApply(plan: DevicePlan, applied: DeploymentRecord | undefined, pods: readonly PodRecord[]): DevicePlan {
  const node = plan.view.nodeName;
  if (applied === undefined || node === undefined || plan.view.bundleReady.reason !== 'Creating') return plan;
  const bundleReady = readiness(applied, node, pods);
  return { ...plan, view: { ...plan.view, bundleReady, phase: bundleReady.status === 'True' ? undefined : 'Pending' } };
}

/** A placement that did not change keeps its message: free-memory figures in it must not cause status writes. */
function keptMessage(device: EdgeDevice, scheduled: ConditionInput, node: string): ConditionInput {
  const old = device.status?.conditions?.find((c) => c.type === 'Scheduled');
  if (old?.status !== 'True' || device.status?.nodeName !== node || scheduled.reason === 'Rescheduled') return scheduled;
  return { ...scheduled, reason: old.reason, message: old.message };
}
