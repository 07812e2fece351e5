// Takes a NodeSample: CPU load, memory and temperature from systeminformation; the disk from
// statfs of one path and the interfaces from os.networkInterfaces(), which give the same figures
// without the child processes systeminformation spawns for them (footprint, issue 5).
import { statfs } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import si from 'systeminformation';
import type { NetworkInterface, NodeSample } from './sample.ts';

export interface Sampler {
  sample(): Promise<NodeSample>;
}

function interfaces(): NetworkInterface[] {
  return Object.entries(networkInterfaces())
    .filter(([, infos]) => infos !== undefined && infos.some((i) => !i.internal))
    .map(([name, infos]) => ({ name, addresses: (infos ?? []).map((i) => i.cidr ?? i.address) }));
}

async function temperature(): Promise<number | undefined> {
  const reading = await si.cpuTemperature().catch(() => undefined);
  const main = reading?.main;
  return typeof main === 'number' && Number.isFinite(main) ? main : undefined;
}

export class SystemSampler implements Sampler {
  private readonly diskPath: string;
  private readonly now: () => number;

  constructor(diskPath: string, now: () => number = Date.now) {
    this.diskPath = diskPath;
    this.now = now;
  }

  async sample(): Promise<NodeSample> {
    const [load, mem, disk, temperatureC] = await Promise.all([si.currentLoad(), si.mem(), statfs(this.diskPath), temperature()]);
    return {
      takenAt: this.now(),
      cpu: { cores: load.cpus.length || 1, loadPercent: Number.isFinite(load.currentLoad) ? load.currentLoad : 0 },
      memory: { totalBytes: mem.total, availableBytes: mem.available },
      disk: { totalBytes: disk.blocks * disk.bsize, availableBytes: disk.bavail * disk.bsize },
      interfaces: interfaces(),
      ...(temperatureC === undefined ? {} : { temperatureC }),
    };
  }
}
