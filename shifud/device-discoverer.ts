// deviceDiscoverer (shifud design): probes every EdgeDevice this node can see, on a jittered
// schedule, with probes bounded in count (concurrency), rate (token bucket) and time (per-probe
// deadline). Level-based: each tick compares the informer's cache with what is scheduled.
import { sleep } from '../shared/backoff.ts';
import type { Logger } from '../shared/log.ts';
import type { LinkType } from './device-status.ts';
import type { DeviceUpdater } from './device-updater.ts';
import { verify } from './device-verifier.ts';
import { objectKey } from '../shared/kube/informer.ts';
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import { observe } from './probes/observe.ts';
import { probeTargetOf } from './target.ts';
import { dueKeys, firstProbeAt, nextProbeAt, takeTokens, untilNextDue, type TokenBucket } from './schedule.ts';
import type { UsbSeen } from './usb-match.ts';
import { linkTypeFor } from './visibility.ts';
import { errorMessage } from '../shared/errors.ts';

/** What the discoverer reads EdgeDevices from: the shared Informer fits. */
export interface DeviceSource {
  list(): EdgeDevice[];
  get(name: string, namespace?: string): EdgeDevice | undefined;
}

export interface ProbeLimits {
  readonly intervalMs: number;
  readonly jitter: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly ratePerSecond: number;
}

export interface DeviceDiscovererOptions {
  readonly nodeName: string;
  readonly source: DeviceSource;
  readonly updater: DeviceUpdater;
  readonly limits: ProbeLimits;
  readonly usbBus: () => Promise<readonly UsbSeen[]>;
  /** Where the node's /dev is mounted, for serial ports. */
  readonly hostDevRoot?: string;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly random?: () => number;
}

interface Tracked {
  readonly linkType: LinkType;
  readonly generation: number | undefined;
  readonly uid: string | undefined;
}

/** The loop wakes at least this often to notice new, changed and deleted devices. */
const TICK_MS = 1000;

export class DeviceDiscoverer {
  private readonly options: DeviceDiscovererOptions;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly tracked = new Map<string, Tracked>();
  private readonly schedule = new Map<string, number>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private bucket: TokenBucket;
  readonly stats = { probes: 0, maxInFlight: 0 };

  constructor(options: DeviceDiscovererOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.bucket = { tokens: Math.max(1, options.limits.concurrency), at: this.now() };
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      this.sync();
      this.launchDue(signal);
      await sleep(Math.max(10, untilNextDue(this.schedule, this.now(), TICK_MS)), signal);
    }
    await Promise.allSettled(this.running.values());
  }

  /** Tracks devices that appeared or changed, drops those gone or no longer visible from here. */
  sync(): void {
    const { nodeName, source } = this.options;
    const visible = new Set<string>();
    for (const device of source.list()) {
      const linkType = linkTypeFor(device, nodeName);
      if (linkType === undefined) continue;
      const key = objectKey(device);
      visible.add(key);
      const { generation, uid } = device.metadata;
      const before = this.tracked.get(key);
      this.tracked.set(key, { linkType, generation, uid });
      if (before === undefined) this.schedule.set(key, firstProbeAt(this.now(), this.options.limits.intervalMs, this.random));
      else if (before.generation !== generation || before.uid !== uid || before.linkType !== linkType) this.schedule.set(key, this.now());
    }
    for (const key of this.tracked.keys()) {
      if (visible.has(key)) continue;
      this.tracked.delete(key);
      this.schedule.delete(key);
      this.releaseIfPresent(key);
    }
  }

  /**
   * Something was plugged or unplugged: every device identified on the USB bus is due at once (the
   * loop picks them up within a tick), under the usual concurrency and rate bounds.
   */
  probeUsbNow(): number {
    let due = 0;
    for (const key of this.tracked.keys()) {
      const device = this.latest(key);
      const target = device === undefined ? undefined : probeTargetOf(device.spec);
      if (target === undefined || !target.ok || target.value.kind !== 'usb') continue;
      // a probe in flight may have read the bus before the change: it runs again when it ends
      if (this.running.has(key)) this.again.add(key);
      else this.schedule.set(key, this.now());
      due += 1;
    }
    return due;
  }

  private releaseIfPresent(key: string): void {
    const [namespace = '', name = ''] = key.split('/');
    const device = this.options.source.get(name, namespace);
    if (device === undefined) this.options.updater.forget(key);
    else void this.options.updater.release(device);
  }

  private launchDue(signal: AbortSignal): void {
    const { concurrency, ratePerSecond } = this.options.limits;
    // a device changed mid-probe is due again, but never probed twice at once
    const due = dueKeys(this.schedule, this.now(), concurrency).filter((key) => !this.running.has(key)).slice(0, concurrency - this.running.size);
    if (due.length === 0) return;
    const taken = takeTokens(this.bucket, { perSecond: ratePerSecond, burst: Math.max(1, concurrency) }, this.now(), due.length);
    this.bucket = taken.bucket;
    for (const key of due.slice(0, taken.granted)) {
      this.schedule.set(key, Number.POSITIVE_INFINITY);
      const task = this.probe(key, signal).finally(() => { this.running.delete(key); });
      this.running.set(key, task);
      this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.running.size);
    }
  }

  private latest(key: string): EdgeDevice | undefined {
    const [namespace = '', name = ''] = key.split('/');
    return this.options.source.get(name, namespace);
  }

  private async probe(key: string, signal: AbortSignal): Promise<void> {
    const { limits, updater, usbBus, logger } = this.options;
    const device = this.latest(key);
    const tracked = this.tracked.get(key);
    if (device === undefined || tracked === undefined) return;
    this.stats.probes += 1;
    try {
      const verdict = verify(await observe(device.spec, { signal, timeoutMs: limits.timeoutMs, usbBus, hostDevRoot: this.options.hostDevRoot }));
      if (signal.aborted) return;
      await updater.update(this.latest(key) ?? device, tracked.linkType, verdict);
    } catch (err) {
      logger.error({ device: key, err: errorMessage(err) }, 'probe failed');
    } finally {
      // unless sync() made it due again meanwhile (spec changed), the next probe is a period away
      if (this.again.delete(key) && this.schedule.has(key)) this.schedule.set(key, this.now());
      else if (this.schedule.get(key) === Number.POSITIVE_INFINITY) this.schedule.set(key, nextProbeAt(this.now(), limits.intervalMs, limits.jitter, this.random));
    }
  }
}
