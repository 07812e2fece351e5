// The consumer's decision for an intent (pure), in the order the REAR workflow sets: local
// capacity first, then the peering candidates already known, then discovery. A candidate must
// match the intent's selector, come from an allowed provider, and cost no more than the ceiling.
import { matches, type Selector } from './selector.ts';
import { describe, perHour, RESOURCE_KEYS, within, type Flavour, type Price, type RearResources, type Take } from './model.ts';
import { capacityOf } from './flavours.ts';

export interface Intent {
  readonly resources: RearResources;
  readonly architecture?: string;
  readonly type?: string;
  readonly durationMs: number;
  readonly maxPrice?: Price;
  readonly allowedProviders?: readonly string[];
  readonly deniedProviders?: readonly string[];
  /** Buy even when the local cluster has room. */
  readonly remoteOnly?: boolean;
}

export interface Candidate {
  readonly flavour: Flavour;
  /** The supernode or cluster that told us of it. */
  readonly via: string;
  readonly expiresAt: number;
}

export type Decision =
  | { readonly step: 'local'; readonly reason: string }
  | { readonly step: 'reserve'; readonly candidate: Candidate; readonly take: Take; readonly reason: string }
  | { readonly step: 'discover'; readonly selector: Selector; readonly reason: string };

/** The selector for discovery: at least what the intent needs. */
export function selectorFor(intent: Intent): Selector {
  const bounds = Object.fromEntries(RESOURCE_KEYS.filter((k) => intent.resources[k] > 0).map((k) => [k, { min: intent.resources[k] }]));
  return { ...(intent.type === undefined ? {} : { type: intent.type }), ...(intent.architecture === undefined ? {} : { architecture: intent.architecture }), bounds };
}

/** What to take of a flavour for the intent: the smallest partition or unit count that holds it. */
export function takeFor(intent: Intent, flavour: Flavour): Take | undefined {
  const policy = flavour.policy;
  if (policy.kind === 'aggregatable') {
    const unit = flavour.characteristics;
    const units = Math.max(policy.minCount, ...RESOURCE_KEYS.filter((k) => unit[k] > 0).map((k) => Math.ceil(intent.resources[k] / unit[k] - 1e-9)));
    if (RESOURCE_KEYS.some((k) => unit[k] <= 0 && intent.resources[k] > 0)) return undefined;
    return units <= Math.min(policy.maxCount, flavour.units ?? 0) ? { units } : undefined;
  }
  const part = Object.fromEntries(RESOURCE_KEYS.map((k) => {
    const min = policy.min[k];
    const step = policy.step[k];
    const need = Math.max(min, intent.resources[k]);
    return [k, step > 0 ? min + Math.ceil((need - min) / step - 1e-9) * step : need];
  })) as unknown as RearResources;
  return within(part, capacityOf(flavour)) ? { partition: part } : undefined;
}

/** Why a candidate cannot serve the intent, or undefined when it can. */
export function refusal(intent: Intent, candidate: Candidate, now: number): string | undefined {
  const f = candidate.flavour;
  if (candidate.expiresAt <= now) return 'expired';
  if (intent.deniedProviders?.includes(f.owner.cluster) === true) return `provider ${f.owner.cluster} is denied`;
  if (intent.allowedProviders !== undefined && intent.allowedProviders.length > 0 && !intent.allowedProviders.includes(f.owner.cluster)) return `provider ${f.owner.cluster} is not allowed`;
  if (!matches(f, selectorFor(intent))) return 'does not match';
  if (takeFor(intent, f) === undefined) return 'policy does not allow a part that holds the intent';
  if (intent.maxPrice !== undefined) {
    if (f.price.currency !== intent.maxPrice.currency) return `priced in ${f.price.currency}, ceiling in ${intent.maxPrice.currency}`;
    if (perHour(quote(intent, f)) > perHour(intent.maxPrice) + 1e-9) return 'above the price ceiling';
  }
  return undefined;
}

/** What the part the intent takes would cost (price scales with the share of the flavour taken). */
export function quote(intent: Intent, f: Flavour): Price {
  const take = takeFor(intent, f);
  if (take?.units !== undefined) return { ...f.price, amount: f.price.amount * take.units };
  const part = take?.partition ?? f.characteristics;
  const share = f.characteristics.cpu > 0 ? part.cpu / f.characteristics.cpu : 1;
  return { ...f.price, amount: f.price.amount * share };
}

export function decide(intent: Intent, localFree: RearResources, candidates: readonly Candidate[], now: number): Decision {
  if (intent.remoteOnly !== true && within(intent.resources, localFree)) return { step: 'local', reason: `local capacity holds ${describe(intent.resources)}` };
  const usable = candidates.filter((c) => refusal(intent, c, now) === undefined)
    .sort((a, b) => perHour(quote(intent, a.flavour)) - perHour(quote(intent, b.flavour)) || (a.flavour.id < b.flavour.id ? -1 : 1));
  const best = usable[0];
  if (best !== undefined) {
    const take = takeFor(intent, best.flavour) ?? {};
    return { step: 'reserve', candidate: best, take, reason: `peering candidate ${best.flavour.id} from ${best.flavour.owner.cluster}` };
  }
  const why = candidates.length === 0 ? 'no peering candidate known' : `none of ${candidates.length} peering candidates fits (${[...new Set(candidates.map((c) => refusal(intent, c, now)))].join('; ')})`;
  return { step: 'discover', selector: selectorFor(intent), reason: why };
}

/** Whether a price the provider actually asks (a transaction's) is under the intent's ceiling. */
export function underCeiling(intent: Intent, price: Price): boolean {
  if (intent.maxPrice === undefined) return true;
  return price.currency === intent.maxPrice.currency && perHour(price) <= perHour(intent.maxPrice) + 1e-9;
}
