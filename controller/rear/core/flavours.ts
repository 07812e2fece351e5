// Flavours from what DRONE's slicing offers the federation (pure). REAR and DRONE sell the same
// slice: what is on sale as flavours is the offered slice minus everything held on it, DRONE's
// hosted components and REAR's transactions and contracts alike, so the two never sell a
// resource twice. A flavour's id is derived from what it offers: when a reservation shrinks it,
// or an expiry restores it, the old id is gone and a new one appears (the old flavour is deleted
// and a reduced one advertised), so a buyer holding a stale id gets a clear not-found.
import { createHash } from 'node:crypto';
import { EdgeshifuError } from '../../../shared/errors.ts';
import { minus, times, total, within, type Flavour, type FlavourPolicy, type Owner, type Price, type RearResources, RESOURCE_KEYS } from './model.ts';

export interface PriceRate {
  readonly currency: string;
  readonly period: Price['period'];
  /** Per whole cpu (1000m). */
  readonly perCpu: number;
  /** Per GiB of memory. */
  readonly perGiB: number;
  /** Per GiB of storage. */
  readonly perStorageGiB?: number;
  readonly perGpu?: number;
}

export interface CatalogueConfig {
  readonly owner: Owner;
  readonly type: string;
  readonly architecture: string;
  readonly policy: FlavourPolicy;
  readonly rate: PriceRate;
  /** Storage (MiB) and gpus this cluster sells: DRONE's slicing does not count them. */
  readonly storage: number;
  readonly gpu: number;
}

/** What the slice offers, in REAR's units: DRONE's offered cpu, memory and pods, plus configured storage and gpus. */
export interface SliceInput {
  readonly offered: { readonly cpu: number; readonly memory: number; readonly pods?: number };
  /** Everything held on the slice: DRONE's hosted components and REAR's transactions and contracts. */
  readonly held: readonly RearResources[];
}

const round = (n: number): number => Math.round(n * 1e4) / 1e4;

export function priceOf(r: RearResources, rate: PriceRate): Price {
  const amount = (r.cpu / 1000) * rate.perCpu + (r.memory / 1024) * rate.perGiB + (r.storage / 1024) * (rate.perStorageGiB ?? 0) + r.gpu * (rate.perGpu ?? 0);
  return { amount: round(amount), currency: rate.currency, period: rate.period };
}

/** What is on sale now: the slice minus everything held (pods: the node limit, or 1,000 when unlimited). */
export function onSale(input: SliceInput, config: CatalogueConfig): RearResources {
  const offered: RearResources = { cpu: input.offered.cpu, memory: input.offered.memory, pods: input.offered.pods ?? 1000, storage: config.storage, gpu: config.gpu };
  return minus(offered, total(input.held));
}

function flavourId(config: CatalogueConfig, what: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify([config.owner, config.type, config.architecture, config.policy, config.rate, what])).digest('hex').slice(0, 16);
  return `${config.owner.cluster}-${config.type.toLowerCase()}-${digest}`;
}

/** Checks a policy once, at configuration time: the error names the field to fix. */
export function validatePolicy(policy: FlavourPolicy): void {
  if (policy.kind === 'partitionable') {
    for (const k of RESOURCE_KEYS) {
      if (!(policy.min[k] >= 0) || !(policy.step[k] >= 0)) throw new EdgeshifuError('invalid', `rear policy: min.${k} and step.${k} must be numbers >= 0`);
    }
    return;
  }
  if (RESOURCE_KEYS.every((k) => policy.unit[k] <= 0)) throw new EdgeshifuError('invalid', 'rear policy: an aggregatable unit must hold some resource');
  if (!(Number.isInteger(policy.minCount) && policy.minCount >= 1 && Number.isInteger(policy.maxCount) && policy.maxCount >= policy.minCount)) {
    throw new EdgeshifuError('invalid', `rear policy: need whole counts with 1 <= minCount <= maxCount, got ${policy.minCount}..${policy.maxCount}`);
  }
}

/** The flavours on sale for `input`: none when less than the policy's minimum is left. */
export function flavoursOf(input: SliceInput, config: CatalogueConfig): Flavour[] {
  const left = onSale(input, config);
  const base = { type: config.type, architecture: config.architecture, policy: config.policy, owner: config.owner, available: true };
  if (config.policy.kind === 'partitionable') {
    if (!within(config.policy.min, left) || left.cpu <= 0) return [];
    return [{ ...base, id: flavourId(config, left), characteristics: left, price: priceOf(left, config.rate) }];
  }
  const { unit, minCount, maxCount } = config.policy;
  const fit = Math.min(maxCount, ...RESOURCE_KEYS.filter((k) => unit[k] > 0).map((k) => Math.floor(left[k] / unit[k] + 1e-9)));
  if (fit < minCount) return [];
  return [{ ...base, id: flavourId(config, { unit, fit }), characteristics: unit, units: fit, price: priceOf(unit, config.rate) }];
}

/** The most a flavour can sell at once. */
export function capacityOf(flavour: Flavour): RearResources {
  return flavour.policy.kind === 'aggregatable' ? times(flavour.characteristics, flavour.units ?? 0) : flavour.characteristics;
}
