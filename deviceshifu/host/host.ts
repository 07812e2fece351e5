// The shared per-node host: one DeviceShifu gateway per assigned device, each on its own port with
// its own /health, /ready, /metrics, driver, telemetry, probe and status writer (gateway.ts), all
// in one process; an LwM2M device's server listens on UDP at its port's number. `assign()` takes the whole assignment and converges on it: devices are started,
// moved to a new port, or stopped, one device at a time and without touching the others.
import { sleep } from '../../shared/backoff.ts';
import type { Logger } from '../../shared/log.ts';
import type { DriverOptions } from '../drivers/driver.ts';
import { DeviceShifu, type GatewayOptions } from '../device-shifu.ts';
import { assignmentKey, type Assignment } from './assignment.ts';

/** Where one device's configuration, EdgeDevice, secrets and status go: the API in a pod, anything in tests. */
export interface DeviceFeed {
  readonly sources: Pick<GatewayOptions, 'secrets' | 'services' | 'patchPhase' | 'reportStatus'>;
  /** Feeds the configuration and the EdgeDevice into the gateway until `signal` aborts; resolves once the first of each is read. */
  follow(gateway: DeviceShifu, signal: AbortSignal): Promise<void>;
}

export interface HostOptions {
  readonly bindAddress: string;
  readonly bodyLimitBytes: number;
  readonly readyWindowMs: number;
  readonly probeIntervalMs: number;
  readonly statusIntervalMs: number;
  readonly driver: Omit<DriverOptions, 'bindAddress'>;
  readonly logger: Logger;
  readonly feedFor: (assignment: Assignment, logger: Logger) => DeviceFeed;
  /** First wait before a failed listen is tried again (doubling up to 30 s). */
  readonly retryMs?: number;
}

export interface HostedDevice {
  readonly assignment: Assignment;
  /** Undefined until the device's port is open. */
  readonly gateway: DeviceShifu | undefined;
  readonly problem: string | undefined;
}

class Hosted {
  gateway: DeviceShifu | undefined;
  problem: string | undefined;
  readonly stopper = new AbortController();
  started: Promise<void> = Promise.resolve();
  readonly assignment: Assignment;
  /** Resolves when the first attempt to host the device has succeeded or failed. */
  readonly tried: Promise<void>;
  markTried: () => void = () => undefined;
  constructor(assignment: Assignment) {
    this.assignment = assignment;
    this.tried = new Promise((resolve) => { this.markTried = resolve; });
  }
}

const same = (a: Assignment, b: Assignment): boolean => a.port === b.port && a.configMap === b.configMap;

export class NodeHost {
  private readonly options: HostOptions;
  private readonly devices = new Map<string, Hosted>();
  /** Stops still under way, so a port is free again before a device takes it. */
  private stopping: Promise<void> = Promise.resolve();

  constructor(options: HostOptions) {
    this.options = options;
  }

  /** Converges on `assignments`: what is new starts, what changed restarts, what is gone stops. */
  assign(assignments: readonly Assignment[]): void {
    const wanted = new Map(assignments.map((a) => [assignmentKey(a), a]));
    const stops: Array<Promise<void>> = [];
    for (const [key, hosted] of this.devices) {
      const next = wanted.get(key);
      if (next !== undefined && same(next, hosted.assignment)) continue;
      this.devices.delete(key);
      stops.push(this.stopOne(hosted, next === undefined ? 'unassigned' : 'reassigned'));
    }
    const stopped = Promise.all([this.stopping, ...stops]).then(() => undefined);
    this.stopping = stopped;
    for (const [key, assignment] of wanted) {
      if (this.devices.has(key)) continue;
      const hosted = new Hosted(assignment);
      this.devices.set(key, hosted);
      hosted.started = stopped.then(() => this.startOne(hosted));
    }
  }

  list(): HostedDevice[] {
    return [...this.devices.values()].map((h) => ({ assignment: h.assignment, gateway: h.gateway, problem: h.problem }));
  }

  get(name: string, namespace: string): HostedDevice | undefined {
    const h = this.devices.get(assignmentKey({ name, namespace }));
    return h === undefined ? undefined : { assignment: h.assignment, gateway: h.gateway, problem: h.problem };
  }

  /** Resolves once every device assigned so far has been hosted, or has failed once (it is tried again). */
  async settled(): Promise<void> {
    await Promise.all([...this.devices.values()].map((h) => h.tried));
  }

  async stop(): Promise<void> {
    const all = [...this.devices.values()];
    this.devices.clear();
    await Promise.all(all.map((h) => this.stopOne(h, 'host stopping')));
    await this.stopping;
  }

  private gatewayOptions(assignment: Assignment, logger: Logger, feed: DeviceFeed): GatewayOptions {
    const o = this.options;
    return {
      port: assignment.port, bindAddress: o.bindAddress, bodyLimitBytes: o.bodyLimitBytes, readyWindowMs: o.readyWindowMs,
      // an LwM2M device's server takes the same number on UDP: TCP and UDP ports are separate, so
      // the port the device was given serves both and no second port is handed out or moved
      probeIntervalMs: o.probeIntervalMs, statusIntervalMs: o.statusIntervalMs, driver: { ...o.driver, bindAddress: o.bindAddress, lwm2mListenPort: assignment.port },
      logger, ...feed.sources,
    };
  }

  /** Opens the device's port (retrying while it is taken) and starts feeding it; never throws. */
  private async startOne(hosted: Hosted): Promise<void> {
    const { assignment, stopper } = hosted;
    const signal = stopper.signal;
    const logger = this.options.logger.child({ device: assignmentKey(assignment), port: assignment.port });
    let wait = this.options.retryMs ?? 500;
    while (!signal.aborted) {
      const feed = this.options.feedFor(assignment, logger);
      const gateway = new DeviceShifu(this.gatewayOptions(assignment, logger, feed));
      const attempt = new AbortController();
      try {
        // configuration first: the port opens on a device that knows its instructions
        await feed.follow(gateway, AbortSignal.any([signal, attempt.signal]));
        await gateway.listen();
        // stopped while the port opened
        if (hosted.stopper.signal.aborted) {
          await gateway.stop();
          return;
        }
        hosted.gateway = gateway;
        hosted.problem = undefined;
        hosted.markTried();
        logger.info('device hosted');
        return;
      } catch (err) {
        attempt.abort();
        await gateway.stop();
        hosted.problem = (err as Error).message;
        hosted.markTried();
        logger.error({ err: hosted.problem, retryInMs: wait }, 'the device could not be hosted; trying again');
        await sleep(wait, signal);
        wait = Math.min(wait * 2, 30_000);
      }
    }
  }

  private async stopOne(hosted: Hosted, why: string): Promise<void> {
    hosted.stopper.abort();
    hosted.markTried();
    await hosted.started;
    const gateway = hosted.gateway;
    hosted.gateway = undefined;
    if (gateway === undefined) return;
    try {
      await gateway.stop();
    } catch (err) {
      this.options.logger.warn({ device: assignmentKey(hosted.assignment), err: (err as Error).message }, 'stopping a device failed');
    }
    this.options.logger.info({ device: assignmentKey(hosted.assignment), why }, 'device no longer hosted');
  }
}
