// shifud wired: the node sample loop (NodeReporter, MqttPublisher) and the device loop
// (DeviceDiscoverer → deviceVerifier → DeviceUpdater) over one EdgeDevice informer, sharing one
// ApiGate; USB plug events trigger a rescan; /healthz, /readyz, /metrics report on all of it.
// Everything it owns stops with stop().
import { networkInterfaces } from 'node:os';
import { sleep } from '../shared/backoff.ts';
import type { KubeClient } from '../shared/kube/client.ts';
import { Informer } from '../shared/kube/informer.ts';
import type { Logger } from '../shared/log.ts';
import { ApiGate } from './api-gate.ts';
import type { ShifudConfig } from './config.ts';
import { DeviceDiscoverer, type DeviceSource } from './device-discoverer.ts';
import { DeviceUpdater } from './device-updater.ts';
import { planScan } from './discovery-plan.ts';
import { DiscoveryScanner } from './discovery-scanner.ts';
import { lwm2mEndpointsOn } from './lwm2m-endpoints.ts';
import { OpcuaDiscovery } from './opcua-discovery.ts';
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import { CALL_TIMEOUT_MS, KubeEdgeDeviceStatusWriter, KubeEdgeNodeClient, edgeDeviceLister, type EdgeDeviceStatusWriter, type EdgeNodeClient } from './kube-clients.ts';
import { browseAddresses, type MdnsRecord } from './mdns.ts';
import { browseMdns } from './mdns-browser.ts';
import { MqttPublisher } from './mqtt-publisher.ts';
import { CollectedGauge, Registry, registerProcessMetrics } from '../shared/prometheus.ts';
import { liveness, readiness, tryServeHealth, type HealthServer, type HealthSource } from './health.ts';
import { NodeReporter, READY, type Readiness } from './node-reporter.ts';
import type { NodeSample } from './sample.ts';
import { SystemSampler, type Sampler } from './sampler.ts';
import { UsbBus, UsbWatch, systemUsbScan, type UsbScan } from './usb-bus.ts';
import { errorMessage } from '../shared/errors.ts';

export interface ShifudDeps {
  /** The API server; shifud does not close it (its owner does). */
  readonly client: KubeClient;
  readonly logger: Logger;
  /** Replaceable for tests: a scripted sampler, a recorded USB bus, counting API clients. */
  readonly sampler?: Sampler;
  readonly usbScan?: UsbScan;
  readonly edgeNodeClient?: EdgeNodeClient;
  readonly deviceWriter?: EdgeDeviceStatusWriter;
  /** One mDNS browse (a recorded one in tests; multicast-dns on this node's interfaces otherwise). */
  readonly mdnsBrowse?: (signal: AbortSignal) => Promise<readonly MdnsRecord[]>;
  readonly now?: () => number;
}

interface StartStop { start(): Promise<void>; stop(): Promise<void> }

const s = (seconds: number): number => Math.round(seconds * 1000);

export class Shifud {
  readonly gate: ApiGate;
  readonly reporter: NodeReporter;
  readonly updater: DeviceUpdater;
  readonly discoverer: DeviceDiscoverer;
  readonly publisher: MqttPublisher | undefined;
  readonly scanner: DiscoveryScanner | undefined;
  /** OPC UA discovery, when --discovery-opcua names targets. */
  readonly opcua: OpcuaDiscovery | undefined;
  private readonly config: ShifudConfig;
  private readonly logger: Logger;
  private readonly sampler: Sampler;
  private readonly informer: DeviceSource & StartStop;
  readonly usbBus: UsbBus;
  readonly usbWatch: UsbWatch;
  private readonly stopper = new AbortController();
  private readonly loops: Promise<unknown>[] = [];
  private readonly now: () => number;
  private lastSample: NodeSample | undefined;
  private health: HealthServer | undefined;
  /** What /healthz and /readyz read. */
  private readonly progress = { startedAt: 0, lastTurnAt: undefined as number | undefined, devicesListed: false, samples: 0 };

  constructor(config: ShifudConfig, deps: ShifudDeps) {
    const { client, logger } = deps;
    const now = deps.now ?? Date.now;
    this.now = now;
    this.config = config;
    this.logger = logger;
    this.sampler = deps.sampler ?? new SystemSampler(config.diskPath, now);
    this.gate = new ApiGate(logger, now);
    this.informer = new Informer<EdgeDevice>({ ...edgeDeviceLister(client, config.deviceNamespace), watch: client.watch, logger });
    this.updater = new DeviceUpdater({ nodeName: config.nodeName, writer: deps.deviceWriter ?? new KubeEdgeDeviceStatusWriter(client, config.nodeName), gate: this.gate, logger, refreshMs: s(config.linkRefreshSeconds), now });
    this.opcua = config.discoveryOpcua.length === 0 ? undefined : new OpcuaDiscovery({ targets: config.discoveryOpcua, intervalMs: s(config.discoveryIntervalSeconds),
      // a channel, FindServers and GetEndpoints: more round trips than a probe's connect
      timeoutMs: Math.max(config.probeTimeoutMs, 5000), logger });
    const opcua = this.opcua;
    this.reporter = new NodeReporter({
      ...(opcua === undefined ? {} : { opcuaServers: () => opcua.servers }),
      lwm2mEndpoints: () => lwm2mEndpointsOn(config.nodeName, this.informer.list()),
      nodeName: config.nodeName, client: deps.edgeNodeClient ?? new KubeEdgeNodeClient(client), gate: this.gate, logger, now,
      devices: () => this.updater.seenDevices(),
      thresholds: { cpu: config.cpuThreshold, memory: config.memoryThreshold, disk: config.diskThreshold, heartbeatMs: s(config.heartbeatSeconds), minIntervalMs: s(config.minWriteIntervalSeconds) },
    });
    const usbBus = new UsbBus(deps.usbScan ?? systemUsbScan, s(config.usbIntervalSeconds), now);
    this.usbBus = usbBus;
    this.discoverer = new DeviceDiscoverer({
      nodeName: config.nodeName, source: this.informer, updater: this.updater, logger, now, usbBus: async () => usbBus.devices(), hostDevRoot: config.hostDevRoot,
      limits: { intervalMs: s(config.probeIntervalSeconds), jitter: config.probeJitter, timeoutMs: config.probeTimeoutMs, concurrency: config.probeConcurrency, ratePerSecond: config.probeRatePerSecond },
    });
    this.publisher = config.mqttUrl === undefined ? undefined : new MqttPublisher({
      url: config.mqttUrl, topicPrefix: config.mqttTopicPrefix, nodeName: config.nodeName, logger,
      ...(config.mqttUsername === undefined ? {} : { username: config.mqttUsername }),
      ...(config.mqttPassword === undefined ? {} : { password: config.mqttPassword }),
    });
    this.scanner = this.makeScanner(config, deps.mdnsBrowse);
    this.usbWatch = new UsbWatch({
      paths: config.usbWatchPaths, logger,
      onChange: () => {
        usbBus.invalidate();
        const due = this.discoverer.probeUsbNow();
        logger.debug({ due }, 'USB bus changed; probing USB devices now');
      },
    });
  }

  /** The unattended scan, when subnets and ports are configured and make a valid plan. */
  private makeScanner(config: ShifudConfig, mdnsBrowse?: ShifudDeps['mdnsBrowse']): DiscoveryScanner | undefined {
    if (config.discoverySubnets.length === 0 || (config.discoveryPorts.length === 0 && !config.discoveryMdns)) return undefined;
    const plan = planScan(config.discoverySubnets, config.discoveryPorts, config.discoveryMaxAddresses);
    if (!plan.ok) {
      this.logger.error({ err: plan.message }, 'unattended discovery is off');
      return undefined;
    }
    return new DiscoveryScanner({
      plan: plan.value, source: this.informer, intervalMs: s(config.discoveryIntervalSeconds), timeoutMs: config.probeTimeoutMs,
      concurrency: config.probeConcurrency, ratePerSecond: config.probeRatePerSecond, logger: this.logger,
      report: (candidates) => this.publisher?.publishCandidates(candidates),
      ...(config.discoveryMdns ? { mdns: {
        subnets: config.discoverySubnets,
        browse: mdnsBrowse ?? ((signal: AbortSignal) => browseMdns(browseAddresses(networkInterfaces(), config.discoverySubnets), config.discoveryMdnsWindowMs, signal)),
      } } : {}),
    });
  }

  /** Starts every loop; returns at once (the informer's first list and the broker come when they can). */
  async start(): Promise<void> {
    const signal = this.stopper.signal;
    this.progress.startedAt = this.now();
    this.health = await tryServeHealth(this.config.healthAddress, this.config.healthPort, this.healthSource(), this.logger);
    await this.publisher?.start();
    await this.usbWatch.start();
    const scanner = this.scanner;
    // candidates are only known once the declared devices are: the scan waits for the first list
    this.loops.push(this.informer.start()
      .then(async () => { this.progress.devicesListed = true; await scanner?.run(signal); })
      .catch((err: unknown) => { this.logger.error({ err }, 'EdgeDevice informer stopped'); }));
    this.loops.push(this.sampleLoop(signal), this.discoverer.run(signal));
    if (this.opcua !== undefined) this.loops.push(this.opcua.run(signal));
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.usbWatch.stop();
    await this.informer.stop();
    await Promise.allSettled(this.loops);
    await this.publisher?.stop();
    await this.health?.close();
  }

  /** The port of /healthz, /readyz, /metrics; undefined when it could not listen. */
  get healthPort(): number | undefined {
    return this.health?.port;
  }

  private healthSource(): HealthSource {
    const stallMs = 3 * s(this.config.sampleIntervalSeconds) + 3 * CALL_TIMEOUT_MS;
    return {
      registry: this.metricsRegistry(),
      live: () => liveness({ ...this.progress, stallMs }, this.now()),
      ready: () => readiness({ devicesListed: this.progress.devicesListed, nodeRegistered: this.reporter.stats.writes > 0, apiOutage: this.gate.failing }),
    };
  }

  /** shifud's counters, read at scrape time, and the process metrics (edgeshifu_process_*). */
  private metricsRegistry(): Registry {
    const registry = new Registry();
    registry.setDefaultLabels({ component: 'shifud', node: this.config.nodeName });
    registerProcessMetrics(registry, 'edgeshifu_');
    const registers = [registry];
    const read = (name: string, help: string, value: () => number, type: 'counter' | 'gauge' = 'counter'): void => {
      new CollectedGauge({ name: `edgeshifu_shifud_${name}`, help, read: value, type, registers });
    };
    read('samples_total', 'Node resource samples taken.', () => this.progress.samples);
    read('edgenode_writes_total', 'EdgeNode status writes that reached the API server.', () => this.reporter.stats.writes);
    read('edgedevice_writes_total', 'EdgeDevice status writes that reached the API server.', () => this.updater.stats.writes);
    read('api_failures_total', 'API calls that failed.', () => this.gate.stats.failures);
    read('api_writes_held_total', 'Writes held back while backing off from the API server.', () => this.gate.stats.refused);
    read('probes_total', 'Device probes started.', () => this.discoverer.stats.probes);
    read('usb_scans_total', 'USB bus scans.', () => this.usbBus.stats.scans);
    read('usb_changes_total', 'USB plug or unplug events seen (after settling).', () => this.usbWatch.stats.triggers);
    read('devices_seen', 'EdgeDevices verified online from this node.', () => this.updater.seenDevices().length, 'gauge');
    return registry;
  }

  /** One sample, published and offered to the reporter. */
  async sampleOnce(): Promise<void> {
    let nodeReadiness: Readiness = READY;
    try {
      this.lastSample = await this.sampler.sample();
      this.progress.samples += 1;
    } catch (err) {
      nodeReadiness = { ready: false, reason: 'SampleFailed', message: `node resources could not be read: ${errorMessage(err)}` };
    }
    if (this.lastSample === undefined) return;
    if (nodeReadiness.ready) this.publisher?.publish(this.lastSample);
    await this.reporter.report(this.lastSample, nodeReadiness);
  }

  private async sampleLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.sampleOnce();
      this.progress.lastTurnAt = this.now();
      await sleep(s(this.config.sampleIntervalSeconds), signal);
    }
  }
}
