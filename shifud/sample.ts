// A node resource sample as shifud takes it (sampler.ts) and publishes it on MQTT, and the
// capacity/free quantities the EdgeNode status carries.
import type { EdgeNodeStatus } from '../shared/crds/edgenode.ts';
import { kibibytes } from '../shared/kube/quantity.ts';

export interface NetworkInterface {
  readonly name: string;
  readonly addresses: readonly string[];
}

export interface NodeSample {
  /** Milliseconds since the epoch. */
  readonly takenAt: number;
  readonly cpu: { readonly cores: number; readonly loadPercent: number };
  readonly memory: { readonly totalBytes: number; readonly availableBytes: number };
  readonly disk: { readonly totalBytes: number; readonly availableBytes: number };
  readonly interfaces: readonly NetworkInterface[];
  /** Main CPU temperature in °C, where the hardware reports it. */
  readonly temperatureC?: number;
}

/** Free CPU in cores: what the load leaves of the capacity. */
export function freeCores(sample: NodeSample): number {
  const load = Math.min(100, Math.max(0, sample.cpu.loadPercent));
  return sample.cpu.cores * (1 - load / 100);
}

type NodeResources = NonNullable<EdgeNodeStatus['capacity']>;

/** Quantities as the kubelet writes a Node's: CPU in millicores, memory and disk in kibibytes. */
export function capacityOf(sample: NodeSample): NodeResources {
  return { cpu: `${Math.round(sample.cpu.cores * 1000)}m`, memory: kibibytes(sample.memory.totalBytes), disk: kibibytes(sample.disk.totalBytes) };
}

export function freeOf(sample: NodeSample): NodeResources {
  return {
    cpu: `${Math.round(freeCores(sample) * 1000)}m`,
    memory: kibibytes(sample.memory.availableBytes),
    disk: kibibytes(sample.disk.availableBytes),
  };
}
