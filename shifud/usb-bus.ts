// The USB bus: on Linux the devices under /sys/bus/usb/devices (readable without privileges or
// lsusb, which the image lacks); elsewhere systeminformation.usb(), loaded only there. Scanned at
// most once per period and only when some EdgeDevice asks; a plug or unplug seen by UsbWatch
// drops the last scan so the next look is fresh. Concurrent readers share one scan.
import { watch, type FSWatcher } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../shared/log.ts';
import { usbSeenFromSysfs } from './procfs.ts';
import type { UsbSeen } from './usb-match.ts';

export type UsbScan = () => Promise<readonly UsbSeen[]>;

const ATTRIBUTES = ['idVendor', 'idProduct', 'serial', 'manufacturer', 'product'] as const;

/** The USB devices sysfs lists under `root` (interfaces such as 1-1:1.0 have no idVendor and are skipped). */
export function sysfsUsbScan(root = '/'): UsbScan {
  const dir = join(root, 'sys/bus/usb/devices');
  return async () => {
    const entries = await readdir(dir).catch(() => []);
    const devices = await Promise.all(entries.filter((e) => !e.includes(':')).sort().map(async (entry) => {
      const values = await Promise.all(ATTRIBUTES.map(async (a) => readFile(join(dir, entry, a), 'utf8').then((v) => v.trim(), () => undefined)));
      const device: Record<string, string> = {};
      ATTRIBUTES.forEach((a, i) => { const v = values[i]; if (v !== undefined) device[a] = v; });
      return usbSeenFromSysfs(device);
    }));
    return devices.filter((d) => d !== undefined);
  };
}

export const systemUsbScan: UsbScan = process.platform === 'linux' ? sysfsUsbScan() : async () => {
  const { default: si } = await import('systeminformation');
  return si.usb();
};

export class UsbBus {
  private readonly scan: UsbScan;
  private readonly periodMs: number;
  private readonly now: () => number;
  private last: { at: number; devices: readonly UsbSeen[] } | undefined;
  private pending: Promise<readonly UsbSeen[]> | undefined;
  readonly stats = { scans: 0 };

  constructor(scan: UsbScan, periodMs: number, now: () => number = Date.now) {
    this.scan = scan;
    this.periodMs = periodMs;
    this.now = now;
  }

  /** The devices on the bus, from a scan no older than the period. A failed scan reads as an empty bus. */
  async devices(): Promise<readonly UsbSeen[]> {
    if (this.last !== undefined && this.now() - this.last.at < this.periodMs) return this.last.devices;
    this.pending ??= this.scan().catch(() => []).then((devices) => {
      this.stats.scans += 1;
      this.last = { at: this.now(), devices };
      this.pending = undefined;
      return devices;
    });
    return this.pending;
  }

  /** Something was plugged or unplugged: the next look scans again. */
  invalidate(): void {
    this.last = undefined;
  }
}

export interface UsbWatchOptions {
  /** Directories whose entries change on plug and unplug: /dev/bus/usb (one subdirectory per bus). */
  readonly paths: readonly string[];
  /** Called once per burst of changes, `settleMs` after the last (udev creates, then chmods). */
  readonly onChange: () => void;
  readonly settleMs?: number;
  readonly logger?: Logger;
}

/**
 * Plug and unplug as inotify events (fs.watch) on /dev/bus/usb and its bus directories: udev-like
 * immediacy without a native netlink module. Where none of the paths exists (no USB, or not
 * mounted into the pod) it watches nothing and the periodic scan alone finds changes.
 */
export class UsbWatch {
  private readonly options: UsbWatchOptions;
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  readonly stats = { events: 0, triggers: 0 };

  constructor(options: UsbWatchOptions) {
    this.options = options;
  }

  /** Starts watching; true when at least one path is watched. */
  async start(): Promise<boolean> {
    for (const path of this.options.paths) await this.watchTree(path);
    if (this.watchers.size === 0) this.options.logger?.info({ paths: this.options.paths }, 'no USB device directory to watch; USB changes are found by the periodic scan');
    return this.watchers.size > 0;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  get watching(): readonly string[] {
    return [...this.watchers.keys()];
  }

  /** The directory and its subdirectories (bus 001, 002, ...). */
  private async watchTree(path: string): Promise<void> {
    if (this.stopped) return;
    if (!this.watchers.has(path)) {
      try {
        const watcher = watch(path, { persistent: false }, () => { this.changed(path); });
        watcher.on('error', () => { this.forget(path); });
        this.watchers.set(path, watcher);
      } catch {
        return; // absent or unreadable: nothing to watch here
      }
    }
    const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory()) await this.watchTree(join(path, entry.name));
  }

  private forget(path: string): void {
    this.watchers.get(path)?.close();
    this.watchers.delete(path);
  }

  private changed(path: string): void {
    this.stats.events += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { void this.settled(path); }, this.options.settleMs ?? 250);
  }

  /** Follows the tree as it is now (a bus directory added or gone), then reports one change. */
  private async settled(path: string): Promise<void> {
    if (this.stopped) return;
    for (const watched of this.watchers.keys()) {
      if (!(await stat(watched).then((s) => s.isDirectory(), () => false))) this.forget(watched);
    }
    if (this.watchers.has(path) || this.options.paths.includes(path)) await this.watchTree(path);
    this.stats.triggers += 1;
    this.options.onChange();
  }
}
