// The node's figures as Linux publishes them in /proc and /sys, parsed from their text. These are
// the files systeminformation reads for the same figures, minus the child processes it spawns on
// every call (`cat /proc/stat`, a shell loop over hwmon, lsusb — absent from the image), and
// minus its import (~6 MB RSS of a 50 MB budget). Pure: the reader is sampler.ts.
import type { UsbSeen } from './usb-match.ts';

/** Jiffies since boot across all CPUs: busy and total (busy + idle + iowait). */
export interface CpuTimes {
  readonly busy: number;
  readonly total: number;
  /** CPUs listed (cpu0, cpu1, ...). */
  readonly cores: number;
}

/** The aggregate `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal (guest is inside user). */
export function parseCpuTimes(procStat: string): CpuTimes | undefined {
  const lines = procStat.split('\n');
  const fields = lines.find((l) => l.startsWith('cpu '))?.trim().split(/\s+/).slice(1).map(Number);
  if (fields === undefined || fields.length < 4 || fields.some((n) => !Number.isFinite(n))) return undefined;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait, cores: lines.filter((l) => /^cpu\d+\s/.test(l)).length || 1 };
}

/** CPU load in percent between two readings; since boot for the first (as systeminformation's first call). */
export function loadPercent(previous: CpuTimes | undefined, current: CpuTimes): number {
  const busy = current.busy - (previous?.busy ?? 0);
  const total = current.total - (previous?.total ?? 0);
  return total > 0 ? Math.min(100, Math.max(0, (busy / total) * 100)) : 0;
}

/** MemTotal and MemAvailable of /proc/meminfo in bytes (kernels before 3.14 lack MemAvailable: free + buffers + cached). */
export function parseMeminfo(text: string): { totalBytes: number; availableBytes: number } | undefined {
  const kB = (key: string): number | undefined => {
    const match = new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text);
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  };
  const totalBytes = kB('MemTotal');
  if (totalBytes === undefined) return undefined;
  const availableBytes = kB('MemAvailable') ?? (kB('MemFree') ?? 0) + (kB('Buffers') ?? 0) + (kB('Cached') ?? 0);
  return { totalBytes, availableBytes };
}

/** One sensor: a hwmon temp*_label with its temp*_input, or a thermal zone's type with its temp (millidegrees). */
export interface TemperatureReading {
  readonly label: string;
  readonly milliC: number;
}

const celsius = (milliC: number): number => Math.round(milliC / 100) / 10;

/**
 * The main CPU temperature, chosen as systeminformation does on Linux: hwmon's Tctl (AMD), else a
 * Package/Physical/Tccd1 sensor (Intel, AMD), else the mean of the Core sensors; then the first
 * thermal zone whose type names a CPU (e.g. a Raspberry Pi's cpu-thermal); else thermal zone 0.
 */
export function cpuTemperature(hwmon: readonly TemperatureReading[], zones: readonly TemperatureReading[]): number | undefined {
  const named = (test: (label: string) => boolean): TemperatureReading | undefined => hwmon.find((r) => test(r.label.toLowerCase()));
  const main = named((l) => l === 'tctl') ?? named((l) => l.includes('package') || l.includes('physical') || l === 'tccd1');
  if (main !== undefined) return celsius(main.milliC);
  const cores = hwmon.filter((r) => r.label.toLowerCase().startsWith('core'));
  if (cores.length > 0) return Math.round(cores.reduce((sum, r) => sum + celsius(r.milliC), 0) / cores.length);
  const zone = zones.find((z) => z.label.toLowerCase().includes('cpu')) ?? zones[0];
  return zone === undefined ? undefined : celsius(zone.milliC);
}

/** The attribute files of one /sys/bus/usb/devices/<bus-port> entry (trimmed; missing ones absent). */
export interface SysfsUsbDevice {
  readonly idVendor?: string;
  readonly idProduct?: string;
  readonly serial?: string;
  readonly manufacturer?: string;
  readonly product?: string;
}

/**
 * A sysfs USB device in systeminformation.usb()'s shape, so matching and its recorded fixtures
 * stay as they are: id "vvvv:pppp", the device's own product and manufacturer strings. Interfaces
 * (entries without idVendor) are not devices.
 */
export function usbSeenFromSysfs(device: SysfsUsbDevice): UsbSeen | undefined {
  if (device.idVendor === undefined || device.idProduct === undefined) return undefined;
  return { id: `${device.idVendor}:${device.idProduct}`, name: device.product ?? null, vendor: device.manufacturer ?? null, serialNumber: device.serial ?? '' };
}
