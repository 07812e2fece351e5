// What a buyer may take of a flavour (pure): a partitionable flavour sells a partition of at least
// the policy's minimum, in whole steps above it; an aggregatable one whole units, minCount to
// maxCount of them. A request that breaks the policy is refused with what to change.
import { EdgeshifuError } from '../../../shared/errors.ts';
import { capacityOf, priceOf, type PriceRate } from './flavours.ts';
import { describe, RESOURCE_KEYS, shortOf, times, type AggregatablePolicy, type Flavour, type Price, type RearResources, type Take } from './model.ts';

export interface Taken {
  readonly resources: RearResources;
  readonly price: Price;
}

function onStep(value: number, min: number, step: number): boolean {
  if (step <= 0) return true;
  const steps = (value - min) / step;
  return Math.abs(steps - Math.round(steps)) < 1e-6;
}

function takeUnits(flavour: Flavour, policy: AggregatablePolicy, take: Take): Taken {
  if (take.partition !== undefined) throw new EdgeshifuError('invalid', `flavour ${flavour.id} is aggregatable: ask for units, not a partition`);
  const units = take.units ?? policy.minCount;
  if (!Number.isInteger(units) || units < policy.minCount || units > policy.maxCount) {
    throw new EdgeshifuError('invalid', `flavour ${flavour.id} sells ${policy.minCount} to ${policy.maxCount} units at once, not ${units}`);
  }
  if (units > (flavour.units ?? 0)) throw new EdgeshifuError('conflict', `flavour ${flavour.id} has ${flavour.units ?? 0} units left, ${units} asked`);
  return { resources: times(flavour.characteristics, units), price: { ...flavour.price, amount: Math.round(flavour.price.amount * units * 1e4) / 1e4 } };
}

/** The resources and price of `take` from `flavour`; throws invalid (policy) or conflict (no longer fits). */
export function taken(flavour: Flavour, take: Take, rate: PriceRate): Taken {
  const policy = flavour.policy;
  if (policy.kind === 'aggregatable') return takeUnits(flavour, policy, take);
  if (take.units !== undefined) throw new EdgeshifuError('invalid', `flavour ${flavour.id} is partitionable: ask for a partition, not units`);
  const part = take.partition ?? flavour.characteristics;
  for (const k of RESOURCE_KEYS) {
    if (!(part[k] >= 0)) throw new EdgeshifuError('invalid', `partition ${k} must be a number >= 0`);
    if (part[k] < policy.min[k] - 1e-9) throw new EdgeshifuError('invalid', `partition ${k} ${part[k]} is below the flavour's minimum ${policy.min[k]}`);
    if (part !== flavour.characteristics && !onStep(part[k], policy.min[k], policy.step[k])) {
      throw new EdgeshifuError('invalid', `partition ${k} ${part[k]} must be the minimum ${policy.min[k]} plus whole steps of ${policy.step[k]}`);
    }
  }
  const short = shortOf(part, capacityOf(flavour));
  if (short.length > 0) throw new EdgeshifuError('conflict', `flavour ${flavour.id} cannot hold ${describe(part)}: short of ${short.join(', ')}`);
  return { resources: part, price: priceOf(part, rate) };
}
