// Takes a NodeSample by reading what Linux publishes: CPU load from /proc/stat (between two
// samples), memory from /proc/meminfo, temperature from hwmon and thermal zones, the disk from
// statfs of one path, the interfaces from os.networkInterfaces(). Parsing is in procfs.ts. Off
// Linux (a developer's machine) the os module stands in for /proc. No child processes (footprint,
// README.md).
import { readFile, readdir, statfs } from 'node:fs/promises';
import { cpus, freemem, networkInterfaces, totalmem } from 'node:os';
import { join } from 'node:path';
import { cpuTemperature, loadPercent, parseCpuTimes, parseMeminfo, type CpuTimes, type TemperatureReading } from './procfs.ts';
import type { NetworkInterface, NodeSample } from './sample.ts';

export interface Sampler {
  sample(): Promise<NodeSample>;
}

function interfaces(): NetworkInterface[] {
  return Object.entries(networkInterfaces())
    .filter(([, infos]) => infos !== undefined && infos.some((i) => !i.internal))
    .map(([name, infos]) => ({ name, addresses: (infos ?? []).map((i) => i.cidr ?? i.address) }));
}

async function text(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').then((t) => t.trim(), () => undefined);
}

/** /proc/stat, or the same counters from os.cpus() where there is no /proc (milliseconds, not jiffies: only ratios matter). */
async function cpuTimes(root: string): Promise<CpuTimes> {
  const parsed = parseCpuTimes(await text(join(root, 'proc/stat')) ?? '');
  if (parsed !== undefined) return parsed;
  const all = cpus();
  const sum = (pick: (t: (typeof all)[number]['times']) => number): number => all.reduce((s, c) => s + pick(c.times), 0);
  const busy = sum((t) => t.user + t.nice + t.sys + t.irq);
  return { busy, total: busy + sum((t) => t.idle), cores: all.length || 1 };
}

async function memory(root: string): Promise<NodeSample['memory']> {
  return parseMeminfo(await text(join(root, 'proc/meminfo')) ?? '') ?? { totalBytes: totalmem(), availableBytes: freemem() };
}

/** Every `<dir>/<entry>/<label file>` with its value file, e.g. hwmon0/temp1_label + temp1_input. */
async function readings(dir: string, entries: RegExp, files: (name: string) => Array<[label: string, value: string]>): Promise<TemperatureReading[]> {
  const found: TemperatureReading[] = [];
  for (const entry of (await readdir(dir).catch(() => [])).filter((e) => entries.test(e)).sort()) {
    const names = await readdir(join(dir, entry)).catch(() => []);
    for (const [labelFile, valueFile] of names.flatMap(files)) {
      const [label, value] = await Promise.all([text(join(dir, entry, labelFile)), text(join(dir, entry, valueFile))]);
      if (label !== undefined && value !== undefined && Number.isFinite(Number(value))) found.push({ label, milliC: Number(value) });
    }
  }
  return found;
}

async function temperature(root: string): Promise<number | undefined> {
  const hwmon = await readings(join(root, 'sys/class/hwmon'), /^hwmon\d+$/, (name) => {
    const match = /^(temp\d+)_label$/.exec(name);
    return match === null ? [] : [[name, `${match[1] ?? ''}_input`]];
  });
  const zones = await readings(join(root, 'sys/class/thermal'), /^thermal_zone\d+$/, (name) => (name === 'type' ? [['type', 'temp']] : []));
  return cpuTemperature(hwmon, zones);
}

export class SystemSampler implements Sampler {
  private readonly diskPath: string;
  private readonly now: () => number;
  private readonly root: string;
  private previousCpu: CpuTimes | undefined;

  /** `root` is where proc/ and sys/ are found: / on a node, a recorded tree in tests. */
  constructor(diskPath: string, now: () => number = Date.now, root = '/') {
    this.diskPath = diskPath;
    this.now = now;
    this.root = root;
  }

  async sample(): Promise<NodeSample> {
    const [cpu, mem, disk, temperatureC] = await Promise.all([cpuTimes(this.root), memory(this.root), statfs(this.diskPath), temperature(this.root)]);
    const load = loadPercent(this.previousCpu, cpu);
    this.previousCpu = cpu;
    return {
      takenAt: this.now(),
      cpu: { cores: cpu.cores, loadPercent: load },
      memory: mem,
      disk: { totalBytes: disk.blocks * disk.bsize, availableBytes: disk.bavail * disk.bsize },
      interfaces: interfaces(),
      ...(temperatureC === undefined ? {} : { temperatureC }),
    };
  }
}
