// Wires the controller: informers → work queue → EdgeDevice reconciler, plus the edgeMap feed
// from EdgeNodes and Nodes. Every change is mapped to the device keys it concerns; reconcile
// reads the world afresh (level-based), so a missed or doubled event costs nothing.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { Informer, InformerEvent } from '../shared/kube/informer.ts';
import type { KubeClient } from '../shared/kube/client.ts';
import { CollectedGauge, type Registry } from '../shared/prometheus.ts';
import type { Logger } from '../shared/log.ts';
import { bundleNames } from './bundle/names.ts';
import { deviceShifuUrl } from './bundle/service.ts';
import type { ControllerConfig } from './config.ts';
import { imageFor } from './config.ts';
import { ApiWriter, type KubeWriter } from './kube-writer.ts';
import { EdgeDeviceReconciler, parseKey } from './reconcile/edgedevice-reconciler.ts';
import { rtuSerialPath } from '../shared/crds/modbus-setting.ts';
import { HostReconciler, hostKey, isHostKey } from './reconcile/host.ts';
import { HOST_APP_NAME } from '../shared/node-host.ts';
import type { DeploymentRecord, ServiceRecord } from './records.ts';
import { Runner } from './runner.ts';
import { candidateNode } from './scheduling/candidates.ts';
import { parseTolerations, type Toleration } from './scheduling/taints.ts';
import { parseNodeFlags } from './bundle/node-flags.ts';
import { labelSelectorMatcher } from './selector.ts';
import type { Topology } from './topology.ts';
import { World, type EdgeDevice, type EdgeNode } from './world.ts';
import { sameButVersion } from './records.ts';
import type { Offloader } from './offload/manager.ts';
import type { RearService } from './rear/manager.ts';
import type { RearResources } from './rear/core/model.ts';
import type { HttpRoute } from '../shared/node-http.ts';
import { errorMessage } from '../shared/errors.ts';

export interface ControllerDeps {
  readonly client: KubeClient;
  readonly config: ControllerConfig;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly topology: Topology;
  readonly writer?: KubeWriter;
}

export class Controller {
  readonly world: World;
  /** DRONE offloading, when this cluster has a DRONE id (made by start(), started by lead()). */
  offloader?: Offloader;
  /** REAR, when this cluster has a DRONE id and a REAR domain (made by start(), started by lead() after DRONE). */
  rear?: RearService;
  /** The REST routes of REAR for the controller's server (nothing until REAR runs). */
  readonly rearRoute: HttpRoute = (req, res) => this.rear?.route(req, res) ?? false;
  /** Resolves once offloading runs (or at once without it). */
  offloading: Promise<void> = Promise.resolve();
  private readonly deps: ControllerDeps;
  private readonly reconciler: EdgeDeviceReconciler;
  private readonly hosts: HostReconciler;
  private readonly runner: Runner;
  private readonly availability = new Map<string, string | undefined>();
  /** The devices each node's shifud last reported seeing: a serial device whose port came or went is placed again. */
  private readonly seenOn = new Map<string, ReadonlySet<string>>();
  /** Devices whose Scheduled condition says they wait for a node: any node event may give them one. */
  private readonly waiting = new Set<string>();
  private readonly tolerations: readonly Toleration[];
  private started = false;
  private stopped?: Promise<void>;
  private reconciling = false;

  constructor(deps: ControllerDeps) {
    const { config, client, logger } = deps;
    this.deps = deps;
    this.tolerations = parseTolerations(config.deviceShifuTolerations);
    this.world = new World(client, config.deviceShifuNamespace, logger);
    const writer = deps.writer ?? new ApiWriter(client, deps.registry);
    const nodeFlags = parseNodeFlags(config.deviceShifuNodeFlags);
    this.hosts = new HostReconciler({ world: this.world, writer, settings: {
      namespace: config.deviceShifuNamespace, image: config.deviceShifuImage, tolerations: this.tolerations, nodeFlags,
      cpuRequest: config.cpuRequest, memoryRequest: config.memoryRequest, cpuLimit: config.cpuLimit, memoryLimit: config.memoryLimit,
    } });
    this.reconciler = new EdgeDeviceReconciler({
      world: this.world,
      writer,
      resyncMs: config.resyncSeconds * 1000,
      heartbeatStaleMs: config.heartbeatStaleSeconds * 1000,
      nodeSelector: config.nodeSelector === '' ? undefined : labelSelectorMatcher(config.nodeSelector),
      settings: {
        namespace: config.deviceShifuNamespace,
        imageFor: (protocol: string) => imageFor(config, protocol),
        cpuRequest: config.cpuRequest, memoryRequest: config.memoryRequest, cpuLimit: config.cpuLimit, memoryLimit: config.memoryLimit,
        tolerations: this.tolerations,
        nodeFlags,
        serialGroup: config.deviceShifuSerialGroup, serialResource: config.deviceShifuSerialResource,
        mode: config.deviceShifuMode as 'dedicated' | 'shared',
        serviceType: config.serviceType as 'ClusterIP' | 'NodePort' | 'LoadBalancer',
        policy: { cooldownMs: config.rescheduleCooldownSeconds * 1000, betterMemoryRatio: config.betterNodeMemoryRatio, betterDistanceKm: config.betterNodeDistanceKm },
      },
    });
    const reconcile = (key: string, log: Logger): ReturnType<EdgeDeviceReconciler['reconcile']> => (isHostKey(key) ? this.hosts.reconcile(key, log) : this.reconciler.reconcile(key, log));
    this.runner = new Runner({ name: 'edgedevice', reconcile, workers: config.workers, logger, registry: deps.registry });
    this.wire();
    const devices = this.world.devices;
    new CollectedGauge({ name: 'edgeshifu_edgedevices', help: 'EdgeDevices in the cache', registers: [deps.registry], read: () => devices.size });
  }

  /** Caches hold their first list (every replica keeps them, so a follower serves the edgeMap too). */
  get synced(): boolean {
    return this.started;
  }

  get leading(): boolean {
    return this.reconciling;
  }

  get queue(): Runner['queue'] {
    return this.runner.queue;
  }

  /** Fills the caches and the edgeMap; reconciling waits for lead(). */
  async start(): Promise<void> {
    await this.makeOffloader();
    await this.world.start();
    this.started = true;
    this.deps.logger.info({ devices: this.world.devices.list().length, nodes: this.world.nodes.list().length }, 'caches synced');
  }

  /** Starts reconciling every device (the leader only). */
  lead(): void {
    if (this.reconciling) return;
    this.reconciling = true;
    this.runner.start();
    this.devicesWhere(() => true);
    // bundles whose device is gone (deleted while no controller ran) are orphans to remove
    for (const record of [...this.world.deployments.list(), ...this.world.services.list()]) this.enqueueOwner(record);
    // hosts with no device left (removed while no controller ran) go too
    this.world.deployments.forEach((record, key) => { this.hostDeploymentEvent(key, record); });
    this.world.services.forEach((record) => { if (record.shared !== undefined) this.enqueue(hostKey(record.shared.node)); });
    if (this.offloader !== undefined) {
      const offloader = this.offloader;
      this.offloading = offloader.start().then(() => this.rear?.start());
      this.offloading.catch((err: unknown) => { this.deps.logger.error({ err: errorMessage(err) }, 'DRONE offloading (or REAR) did not start'); });
    }
    this.deps.logger.info('reconciling');
  }

  /**
   * DRONE's code (MQTT client and broker, auctions, slicing: ~5 MB of RSS) is loaded only on a
   * cluster with a DRONE id; a bundle keeps it in a chunk of its own.
   */
  private async makeOffloader(): Promise<void> {
    const { config, client, logger } = this.deps;
    const droneCluster = config.droneCluster;
    if (droneCluster === undefined || this.offloader !== undefined) return;
    const { Offloader } = await import('./offload/manager.ts');
    // REAR rides on DRONE (its bus, keys and slice); its code loads only when a domain is set
    const rearDomain = config.rearDomain;
    const rearSchemas = rearDomain === undefined ? undefined : (await import('./rear/messages/index.ts')).REAR_SCHEMAS;
    // PodRecord has the V1Pod shape DRONE's capacity reads (records.ts): its cache serves as a V1Pod one
    const pods = this.world.pods as unknown as Informer<V1Pod>;
    const offloader = new Offloader({ client, settings: { ...config, droneCluster }, logger, registry: this.deps.registry, nodes: this.world.nodes, pods, topology: this.deps.topology, ...(rearSchemas === undefined ? {} : { extraSchemas: rearSchemas }) });
    this.offloader = offloader;
    if (rearDomain === undefined) return;
    const { RearService } = await import('./rear/manager.ts');
    const localFree = (): RearResources => { const f = offloader.free(); return { cpu: f.cpu, memory: f.memory, pods: f.pods ?? Number.MAX_SAFE_INTEGER, storage: 0, gpu: 0 }; };
    this.rear = new RearService({ client, settings: { ...config, droneCluster, rearDomain }, federation: offloader.federation, localFree, logger, registry: this.deps.registry });
  }

  /** Stops once, however often it is called. */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  private async shutdown(): Promise<void> {
    await this.offloading.catch(() => undefined);
    await this.rear?.stop();
    await this.offloader?.stop();
    await this.runner.stop();
    await this.world.stop();
  }

  private enqueue(key: string): void {
    if (this.reconciling) this.runner.queue.add(key);
  }

  /** The device a bundle object or deviceShifu pod belongs to, by the key its record holds. */
  private enqueueOwner(record: { readonly device: string | undefined }): void {
    if (record.device !== undefined) this.enqueue(record.device);
  }

  /** An event on a bundle object or deviceShifu pod; an update that changed nothing its record keeps (status heartbeats, conditions) reconciles nothing. */
  private ownerEvent<R extends { readonly device: string | undefined }>(event: InformerEvent, record: R, previous: R | undefined): void {
    if (event !== 'update' || !sameButVersion(record, previous)) this.enqueueOwner(record);
  }

  /** A shared device's Service came, went or moved: the hosts of its old and new node look again. */
  private sharedServiceEvent(record: ServiceRecord, previous: ServiceRecord | undefined): void {
    if (record.shared !== undefined) this.enqueue(hostKey(record.shared.node));
    if (previous?.shared !== undefined && previous.shared.node !== record.shared?.node) this.enqueue(hostKey(previous.shared.node));
  }

  /** A host's Deployment changed: the host is looked at again, and so is the readiness of the devices it serves. */
  private hostDeploymentEvent(key: string, record: DeploymentRecord): void {
    const node = record.node;
    if (node === undefined || !key.slice(key.indexOf('/') + 1).startsWith(`${HOST_APP_NAME}-`)) return;
    this.enqueue(hostKey(node));
    this.world.services.forEach((service) => { if (service.shared?.node === node) this.enqueueOwner(service); });
  }

  private wire(): void {
    const { world } = this;
    for (const event of ['add', 'update', 'delete'] as const) {
      // the cache's own key string, shared by the queue, the applied-object record and the edgeMap
      world.devices.on(event, (d, key) => {
        this.showDevice(key, event === 'delete' ? undefined : d);
        if (event !== 'delete' && waitingForNode(d)) this.waiting.add(key);
        else this.waiting.delete(key);
        this.enqueue(key);
      });
      world.deployments.on(event, (o, key, previous) => {
        this.ownerEvent(event, o, previous);
        if (event !== 'update' || !sameButVersion(o, previous)) this.hostDeploymentEvent(key, o);
      });
      world.services.on(event, (o, _key, previous) => {
        this.ownerEvent(event, o, previous);
        this.sharedServiceEvent(o, previous);
      });
      world.pods.on(event, (p, _key, previous) => { if (event !== 'delete') this.reconciler.podBound(p); this.ownerEvent(event, p, previous); });
      world.configMaps.on(event, (cm) => { this.devicesWhere((d) => d.spec.configMapName === cm.metadata?.name); });
      world.nodes.on(event, (n) => { this.nodeChanged(n.metadata?.name ?? '', event === 'delete'); });
      world.edgeNodes.on(event, (n) => { this.edgeNodeChanged(n, event === 'delete'); });
    }
  }

  /** The edgeMap follows the cache: what the devices' status says is what the map shows. */
  private showDevice(key: string, device: EdgeDevice | undefined): void {
    if (device === undefined) {
      this.deps.topology.removeDevice(key);
      return;
    }
    const nodeName = device.status?.nodeName;
    const ref = { name: device.metadata.name ?? '', namespace: device.metadata.namespace ?? '', spec: device.spec };
    const url = nodeName === undefined || !validName(ref.name) ? undefined : deviceShifuUrl(ref, this.deps.config.deviceShifuNamespace);
    this.deps.topology.upsertDevice(key, { spec: device.spec, nodeName, phase: device.status?.edgedevicephase, url, links: device.status?.links });
  }

  private devicesWhere(predicate: (device: EdgeDevice) => boolean): void {
    this.world.devices.forEach((device, key) => { if (predicate(device)) this.enqueue(key); });
  }

  private edgeNodeChanged(edgeNode: EdgeNode, deleted: boolean): void {
    this.nodeChanged(edgeNode.metadata.name ?? '', deleted && this.world.nodes.get(edgeNode.metadata.name ?? '') === undefined);
  }

  /** Devices on a node whose availability changed, and devices waiting for a node, are looked at again. */
  private nodeChanged(name: string, deleted: boolean): void {
    const node: V1Node | undefined = this.world.nodes.get(name);
    const edgeNode = this.world.edgeNodes.get(name);
    const clock = { now: Date.now(), staleMs: this.deps.config.heartbeatStaleSeconds * 1000, requireEdgeNode: this.world.edgeNodes.size > 0, tolerations: this.tolerations };
    const view = deleted || node === undefined ? undefined : candidateNode(node, edgeNode, undefined, clock);
    const unavailable = view === undefined ? 'gone' : view.unavailable;
    // every Node can host deviceShifu, so every Node is on the map; shifud's EdgeNode adds detail
    if (node !== undefined && !deleted) this.deps.topology.upsertNode(name, { spec: edgeNode?.spec, status: edgeNode?.status, unavailable });
    else this.deps.topology.removeNode(name);
    // a taint added or lifted moves devices as a cordon does
    const usable = unavailable ?? (view?.taint === undefined ? undefined : `tainted ${view.taint}`);
    const changed = !this.availability.has(name) || this.availability.get(name) !== usable;
    this.availability.set(name, usable);
    // devices waiting for room look again at any node change; placed ones only when availability
    // changed: a heartbeat of each of 100 nodes must not scan 10,000 devices (steady state)
    for (const key of this.waiting) this.enqueue(key);
    if (changed) this.devicesWhere((d) => d.status?.nodeName === name || d.spec.attachedNode === name);
    this.seenChanged(name, view?.seen);
  }

  private seenChanged(name: string, seen: ReadonlySet<string> | undefined): void {
    const before = this.seenOn.get(name);
    if (seen === undefined) this.seenOn.delete(name); else this.seenOn.set(name, seen);
    for (const key of before ?? []) if (seen?.has(key) !== true) this.enqueueSerial(key);
    for (const key of seen ?? []) if (before?.has(key) !== true) this.enqueueSerial(key);
  }

  private enqueueSerial(key: string): void {
    const { namespace, name } = parseKey(key);
    if (rtuSerialPath(this.world.devices.get(name, namespace)?.spec ?? { protocol: '' }) !== undefined) this.enqueue(key);
  }
}

/** Whether the device's Scheduled condition says it waits for a node. */
function waitingForNode(device: EdgeDevice): boolean {
  const conditions = device.status?.conditions;
  if (conditions === undefined) return false;
  for (const c of conditions) if (c.type === 'Scheduled') return c.status !== 'True';
  return false;
}

function validName(name: string): boolean {
  try {
    bundleNames({ name, namespace: '' });
    return true;
  } catch {
    return false;
  }
}
