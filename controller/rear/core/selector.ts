// The LIST_FLAVOURS selector (pure): flavour type, architecture, and per resource a lower bound
// (more than or equal) and an upper bound (less than or equal). A partitionable flavour matches an
// upper bound when its minimum partition is under it: the buyer takes a part that fits.
import { EdgeshifuError } from '../../../shared/errors.ts';
import { capacityOf } from './flavours.ts';
import { RESOURCE_KEYS, type Flavour, type ResourceKey } from './model.ts';

export interface Bounds {
  readonly min?: number;
  readonly max?: number;
}

export interface Selector {
  readonly type?: string;
  readonly architecture?: string;
  readonly bounds?: Partial<Record<ResourceKey, Bounds>>;
}

export function validateSelector(selector: Selector): void {
  for (const [key, b] of Object.entries(selector.bounds ?? {})) {
    if (!(RESOURCE_KEYS as readonly string[]).includes(key)) throw new EdgeshifuError('invalid', `selector: unknown resource ${key}; use one of ${RESOURCE_KEYS.join(', ')}`);
    if (b.min !== undefined && !(b.min >= 0)) throw new EdgeshifuError('invalid', `selector: ${key} min must be a number >= 0`);
    if (b.max !== undefined && !(b.max >= 0)) throw new EdgeshifuError('invalid', `selector: ${key} max must be a number >= 0`);
    if (b.min !== undefined && b.max !== undefined && b.min > b.max) throw new EdgeshifuError('invalid', `selector: ${key} min ${b.min} is above max ${b.max}`);
  }
}

export function matches(flavour: Flavour, selector: Selector): boolean {
  if (!flavour.available) return false;
  if (selector.type !== undefined && selector.type.toLowerCase() !== flavour.type.toLowerCase()) return false;
  if (selector.architecture !== undefined && selector.architecture !== flavour.architecture) return false;
  const most = capacityOf(flavour);
  const least = flavour.policy.kind === 'partitionable' ? flavour.policy.min : flavour.characteristics;
  return Object.entries(selector.bounds ?? {}).every(([key, b]) => {
    const k = key as ResourceKey;
    if (b.min !== undefined && most[k] < b.min) return false;
    return b.max === undefined || least[k] <= b.max;
  });
}

export function select(flavours: readonly Flavour[], selector: Selector): Flavour[] {
  return flavours.filter((f) => matches(f, selector));
}
