// One deviceShifu: the HTTP server, the driver of the current EdgeDevice, its telemetry loops, the
// reachability probe and the status writer. `update()` swaps configuration or device while the
// server keeps serving (hot reload, which Shifu's deviceShifu lacks: README.md). Each instance owns all of its state.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from '../shared/backoff.ts';
import { http } from '../shared/node-http.ts';
import type { Logger } from '../shared/log.ts';
import type { DeviceShifuConfig, Instruction } from './config/types.ts';
import { callDevice, type CallDeps, type CallInput } from './device-call.ts';
import type { Driver, DriverOptions, DriverResponse, SecretReader, StatusReporter } from './drivers/driver.ts';
import { createDriver } from './drivers/index.ts';
import { createHandler } from './http/app.ts';
import type { DeviceIdentity, GatewayView } from './http/view.ts';
import { GatewayMetrics } from './metrics.ts';
import { DeviceHealth } from './status/health.ts';
import { judgePhase } from './status/phase.ts';
import { StatusWriter, type PhasePatcher } from './status/writer.ts';
import { TelemetryPusher, type ServiceResolver } from './telemetry/pusher.ts';
import { startTelemetries } from './telemetry/runner.ts';

export interface GatewayOptions {
  readonly port: number;
  readonly bindAddress: string;
  readonly bodyLimitBytes: number;
  readonly readyWindowMs: number;
  readonly probeIntervalMs: number;
  readonly statusIntervalMs: number;
  readonly driver: DriverOptions;
  readonly logger: Logger;
  readonly secrets: SecretReader;
  readonly services: ServiceResolver;
  /** Writes the EdgeDevice phase; absent in standalone mode. */
  readonly patchPhase?: PhasePatcher;
  /** Writes what a driver learnt about its device (an LwM2M registration); absent in standalone mode. */
  readonly reportStatus?: StatusReporter;
}

export interface Update {
  readonly config?: DeviceShifuConfig;
  /** null: the EdgeDevice is gone. */
  readonly device?: DeviceIdentity | null;
}

/** What a driver depends on: a change here means a new driver (new connections). */
function driverKey(device: DeviceIdentity | undefined, config: DeviceShifuConfig | undefined): string {
  if (device === undefined || config === undefined) return '';
  const instructions = [...config.instructions.values()].map((i) => [i.name, i.protocolProperties]);
  return JSON.stringify([device.name, device.spec, config.driver, config.controlMsgs, instructions]);
}

export class DeviceShifu {
  readonly metrics = new GatewayMetrics();
  readonly health = new DeviceHealth();
  private readonly options: GatewayOptions;
  private readonly logger: Logger;
  private readonly stopper = new AbortController();
  private readonly pusher: TelemetryPusher;
  private readonly statusWriter: StatusWriter | undefined;
  private config: DeviceShifuConfig | undefined;
  private device: DeviceIdentity | undefined;
  private driver: Driver | undefined;
  private driverStop: AbortController | undefined;
  private telemetryStop: AbortController | undefined;
  private server: Server | undefined;
  private updates: Promise<void> = Promise.resolve();

  constructor(options: GatewayOptions) {
    this.options = options;
    this.logger = options.logger;
    this.pusher = new TelemetryPusher(options.services, options.logger);
    const patch = options.patchPhase;
    this.statusWriter = patch === undefined ? undefined : new StatusWriter({
      patch, minIntervalMs: options.statusIntervalMs, logger: options.logger, onWrite: (result) => { this.metrics.statusWrites.inc({ result }); },
    });
    this.health.onChange(() => { this.judge(); });
  }

  /** Starts serving; resolves with the address actually bound. */
  async listen(): Promise<AddressInfo> {
    const server = http.createServer({ keepAliveTimeout: 65_000 }, createHandler(this.view()));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.bindAddress, () => { server.off('error', reject); resolve(); });
    });
    this.server = server;
    void this.probeLoop(this.stopper.signal);
    const address = server.address() as AddressInfo;
    this.logger.info({ address: `${address.address}:${address.port}` }, 'deviceShifu listening');
    return address;
  }

  /** Applies a new configuration and/or EdgeDevice; updates run one at a time, in order. */
  update(change: Update): Promise<void> {
    this.updates = this.updates.then(() => this.apply(change)).catch((err: unknown) => {
      this.logger.error({ err: (err as Error).message }, 'applying the new configuration failed');
    });
    return this.updates;
  }

  /** The phase the API server holds, from the EdgeDevice as read. */
  observedPhase(phase: Parameters<StatusWriter['observed']>[0]): void {
    this.statusWriter?.observed(phase);
  }

  currentPhase(): ReturnType<typeof judgePhase> {
    return judgePhase(this.health.snapshot(), { now: this.health.now(), hasTelemetry: (this.config?.telemetries.length ?? 0) > 0, staleMs: this.staleMs() });
  }

  currentDriver(): Driver | undefined {
    return this.driver;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.statusWriter?.stop();
    this.telemetryStop?.abort();
    // an update under way may be starting a driver (binding its port): let it finish, so the
    // driver stopped here is the last one and none is left running after stop
    await this.updates;
    this.driverStop?.abort();
    await this.driver?.stop();
    this.driver = undefined;
    await this.pusher.stop();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => { if (this.server === undefined) resolve(); else this.server.close(() => { resolve(); }); });
  }

  private view(): GatewayView {
    return {
      config: () => this.config,
      device: () => this.device,
      call: (instruction, input) => this.call(instruction, input),
      metrics: this.metrics,
      health: this.health,
      readyWindowMs: this.options.readyWindowMs,
      bodyLimitBytes: this.options.bodyLimitBytes,
      logger: this.logger,
    };
  }

  // made once: a call is on every request's path
  private readonly callDeps: CallDeps = { driver: () => this.driver, deviceName: () => this.device?.name, metrics: this.metrics, health: this.health };

  private call(instruction: Instruction, input: CallInput): Promise<DriverResponse> {
    return callDevice(this.callDeps, instruction, input);
  }

  private async apply(change: Update): Promise<void> {
    if (this.stopper.signal.aborted) return;
    const config = change.config ?? this.config;
    const device = change.device === null ? undefined : (change.device ?? this.device);
    const rebuild = driverKey(device, config) !== driverKey(this.device, this.config);
    const deviceChanged = JSON.stringify(device?.spec) !== JSON.stringify(this.device?.spec);
    this.telemetryStop?.abort();
    if (rebuild) await this.replaceDriver(device, config);
    this.config = config;
    this.device = device;
    if (deviceChanged) this.deviceChanged(device);
    this.health.keepTelemetries(config?.telemetries.map((t) => t.name) ?? []);
    for (const warning of config?.warnings ?? []) this.logger.warn(warning);
    this.startTelemetry();
    this.judge();
  }

  private deviceChanged(device: DeviceIdentity | undefined): void {
    this.health.reset();
    if (device === undefined) this.logger.warn('EdgeDevice gone: instructions answer 502 until it is back');
    else this.logger.info({ device: device.name, protocol: device.spec.protocol, address: device.spec.address }, 'EdgeDevice applied');
  }

  private async replaceDriver(device: DeviceIdentity | undefined, config: DeviceShifuConfig | undefined): Promise<void> {
    this.driverStop?.abort();
    await this.driver?.stop();
    this.driver = undefined;
    if (device === undefined || config === undefined) return;
    const stop = new AbortController();
    try {
      const driver = await createDriver({ deviceName: device.name, spec: device.spec, config, options: this.options.driver, secrets: this.options.secrets, logger: this.logger.child({ protocol: device.spec.protocol }),
        ...(this.options.reportStatus === undefined ? {} : { reportStatus: this.options.reportStatus }) });
      await driver.start(stop.signal);
      this.driver = driver;
      this.driverStop = stop;
    } catch (err) {
      stop.abort();
      this.logger.error({ device: device.name, err: (err as Error).message }, 'the device driver could not start; instructions answer 502 until the EdgeDevice is fixed');
    }
  }

  private startTelemetry(): void {
    const config = this.config;
    const device = this.device;
    if (config === undefined || device === undefined || this.driver === undefined || config.telemetries.length === 0) return;
    const stop = new AbortController();
    this.telemetryStop = stop;
    const driver = this.driver;
    void startTelemetries(config, {
      deviceName: device.name,
      call: (instruction, input) => this.call(instruction, input),
      probe: (signal) => driver.probe(signal),
      ...(driver.subscribe === undefined ? {} : { subscribe: driver.subscribe.bind(driver) }),
      push: (to, payload, signal) => this.pusher.push(to, payload, signal),
      health: this.health, metrics: this.metrics, logger: this.logger,
    }, AbortSignal.any([stop.signal, this.stopper.signal]));
  }

  /** Probes the device when nothing else has shown it alive lately: /ready and the phase need evidence. */
  private async probeLoop(signal: AbortSignal): Promise<void> {
    const every = this.options.probeIntervalMs;
    while (!signal.aborted) {
      const { lastOkAt } = this.health.snapshot();
      const driver = this.driver;
      if (driver !== undefined && (lastOkAt === undefined || this.health.now() - lastOkAt >= every)) await this.probe(driver, signal);
      this.judge();
      // While the device is away, look again sooner: readiness should follow it within a second.
      await sleep(this.health.snapshot().probe?.ok === false ? Math.min(every, 1000) : every, signal);
    }
  }

  private async probe(driver: Driver, signal: AbortSignal): Promise<void> {
    try {
      await driver.probe(AbortSignal.any([signal, AbortSignal.timeout(Math.min(this.options.probeIntervalMs, 5000))]));
      if (this.driver === driver) this.health.record('probe', true);
    } catch (err) {
      if (this.driver === driver && !signal.aborted) this.health.record('probe', false, (err as Error).message);
    }
  }

  private staleMs(): number {
    const longest = Math.max(0, ...(this.config?.telemetries ?? []).map((t) => t.intervalMs));
    return Math.max(this.options.readyWindowMs, 3 * longest, 3 * this.options.probeIntervalMs);
  }

  private judge(): void {
    if (this.device === undefined || this.statusWriter === undefined) return;
    this.statusWriter.set(this.currentPhase());
  }
}
