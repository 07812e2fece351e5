// REAR's numbers as Kubernetes quantities and back (cpu "1500m", memory and storage "512Mi", pods
// and gpus whole counts): the shape FLUIDOS's JSON and edgeshifu's CRDs carry.
import { EdgeshifuError } from '../../shared/errors.ts';
import { cpuMillis, parseQuantity } from '../../shared/kube/quantity.ts';
import type { RearResources } from './core/model.ts';

export interface Quantities {
  readonly cpu: string;
  readonly memory: string;
  readonly pods: string;
  readonly storage: string;
  readonly gpu: string;
}

const mib = (n: number): string => `${Math.round(n * 1024) / 1024}Mi`;

export function toQuantities(r: RearResources): Quantities {
  return { cpu: `${Math.round(r.cpu)}m`, memory: mib(r.memory), pods: String(Math.floor(r.pods)), storage: mib(r.storage), gpu: String(Math.floor(r.gpu)) };
}

function read(value: unknown, field: string, parse: (q: string | number) => number): number {
  if (value === undefined) return 0;
  if (typeof value !== 'string' && typeof value !== 'number') throw new EdgeshifuError('invalid', `${field} must be a quantity such as "500m", "2", "1Gi"`);
  let n: number;
  try {
    n = parse(value);
  } catch {
    throw new EdgeshifuError('invalid', `${field}: ${JSON.stringify(value)} is not a Kubernetes quantity (e.g. 500m, 2, 128Mi, 1.5Gi)`);
  }
  if (!(n >= 0) || !Number.isFinite(n)) throw new EdgeshifuError('invalid', `${field} must not be negative`);
  return n;
}

const MiB = (v: string | number): number => parseQuantity(v) / 2 ** 20;
const PARSERS: Record<keyof Quantities, (q: string | number) => number> = { cpu: cpuMillis, memory: MiB, pods: parseQuantity, storage: MiB, gpu: parseQuantity };

/** One quantity of a resource key, in REAR's units (absent: 0); `field` names it in errors. */
export function quantityOf(key: keyof Quantities, value: unknown, field: string): number {
  return read(value, field, PARSERS[key]);
}

/** Reads quantities (absent: 0); `where` prefixes the field in errors ("configuration.data"). */
export function fromQuantities(q: Partial<Record<keyof Quantities, unknown>>, where: string): RearResources {
  const one = (k: keyof Quantities): number => quantityOf(k, q[k], `${where}.${k}`);
  return { cpu: one('cpu'), memory: one('memory'), pods: one('pods'), storage: one('storage'), gpu: one('gpu') };
}
