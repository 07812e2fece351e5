// The controller's REAR settings (flags --rear-..., env EDGESHIFU_REAR_...): off unless a domain
// is given, and only on a cluster that runs DRONE (REAR uses DRONE's bus, keys and slice). The
// parsers turn them into the pure cores' inputs, with errors that name the flag to fix.
import { Type, type Static } from '@sinclair/typebox';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { CatalogueConfig } from './core/flavours.ts';
import { PERIODS, type FlavourPolicy, type Period, type RearResources } from './core/model.ts';
import type { Terms } from './core/provider.ts';
import type { Topology } from './flows/routing.ts';
import { quantityOf, type Quantities } from './quantities.ts';

const ClusterList = Type.String({ default: '', pattern: '^([a-z0-9-]+(,[a-z0-9-]+)*)?$' });

export const RearSettings = Type.Object({
  rearDomain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'REAR on: this cluster\'s domain (the clusters behind one supernode). Needs --drone-cluster.' })),
  rearSupernode: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+$', description: 'The cluster id of this domain\'s supernode; this cluster itself when absent.' })),
  rearMembers: { ...ClusterList, description: 'Supernode only: the cluster ids of its domain, comma-separated.' },
  rearSupernodes: Type.String({ default: '', pattern: '^([^=,]+=[a-z0-9-]+(,[^=,]+=[a-z0-9-]+)*)?$', description: 'Supernode only: the supernode (or catalogue) of each other domain it knows, "domain=cluster,...".' }),
  rearPriceRate: Type.String({ default: 'cpu=0.04,memory=0.01', description: 'Price per whole cpu, per GiB of memory, of storage and per gpu: "cpu=0.04,memory=0.01,storage=0.001,gpu=1".' }),
  rearCurrency: Type.String({ default: 'EUR', pattern: '^[A-Z]{3}$' }),
  rearPeriod: Type.String({ enum: [...PERIODS], default: 'hourly', description: 'The period prices are per.' }),
  rearPolicy: Type.String({ enum: ['partitionable', 'aggregatable'], default: 'partitionable', description: 'partitionable: any part of the slice, at least --rear-min, in whole --rear-step above it; aggregatable: whole --rear-unit, --rear-min-count to --rear-max-count of them.' }),
  rearMin: Type.String({ default: 'cpu=500m,memory=512Mi,pods=1', description: 'Partitionable: the least a buyer takes, "cpu=500m,memory=512Mi,pods=1,storage=1Gi,gpu=0".' }),
  rearStep: Type.String({ default: 'cpu=250m,memory=256Mi,pods=1', description: 'Partitionable: what a buyer takes above the minimum comes in whole steps of this.' }),
  rearUnit: Type.String({ default: 'cpu=1,memory=1Gi,pods=2', description: 'Aggregatable: one unit.' }),
  rearMinCount: Type.Integer({ minimum: 1, default: 1 }),
  rearMaxCount: Type.Integer({ minimum: 1, default: 4 }),
  rearFlavourType: Type.String({ default: 'K8Slice', pattern: '^[A-Za-z0-9-]{1,63}$' }),
  rearArchitecture: Type.String({ default: 'amd64', pattern: '^[a-z0-9_-]{1,63}$' }),
  rearStorage: Type.String({ default: '0', description: 'Storage on sale (DRONE\'s slicing does not count it), a quantity.' }),
  rearGpu: Type.Integer({ minimum: 0, default: 0, description: 'Gpus on sale.' }),
  rearAddress: Type.String({ default: '', maxLength: 300, description: 'Where this cluster\'s REAR REST routes answer (the flavours\' owner address).' }),
  rearNamespace: Type.String({ default: 'edgeshifu-system', pattern: '^[a-z0-9-]+$', description: 'Where the seller keeps its Transactions and Contracts.' }),
  rearReservationSeconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 60, description: 'A reservation not purchased within this expires and its resources return.' }),
  rearContractSeconds: Type.Integer({ minimum: 1, default: 3_600, description: 'A contract\'s length when the buyer does not say.' }),
  rearMaxContractSeconds: Type.Integer({ minimum: 1, default: 2_592_000, description: 'The longest contract sold.' }),
  rearCacheTtlSeconds: Type.Integer({ minimum: 1, default: 60, description: 'How long discovered flavours are kept as peering candidates.' }),
  rearReplyTimeoutMs: Type.Integer({ minimum: 10, default: 2_000, description: 'How long a supernode waits for those it asked, and a buyer for its first try (doubled each retry).' }),
});
export type RearSettings = Static<typeof RearSettings>;

function pairs(value: string, flag: string): Array<[string, string]> {
  return value.split(',').map((e) => e.trim()).filter((e) => e !== '').map((entry) => {
    const at = entry.indexOf('=');
    if (at <= 0) throw new EdgeshifuError('invalid', `${flag} entry "${entry}" must be name=value`);
    return [entry.slice(0, at), entry.slice(at + 1)];
  });
}

const KEYS = ['cpu', 'memory', 'pods', 'storage', 'gpu'] as const;

/** "cpu=500m,memory=512Mi,..." → resources; a clear error naming the flag otherwise. */
export function resourcesOf(value: string, flag: string): RearResources {
  const out = { cpu: 0, memory: 0, pods: 0, storage: 0, gpu: 0 };
  for (const [key, q] of pairs(value, flag)) {
    if (!(KEYS as readonly string[]).includes(key)) throw new EdgeshifuError('invalid', `${flag}: "${key}" is not one of ${KEYS.join(', ')}`);
    out[key as keyof Quantities] = quantityOf(key as keyof Quantities, q, `${flag} ${key}`);
  }
  return out;
}

export function policyOf(s: RearSettings): FlavourPolicy {
  if (s.rearPolicy === 'aggregatable') {
    if (s.rearMinCount > s.rearMaxCount) throw new EdgeshifuError('invalid', `--rear-min-count (${s.rearMinCount}) must not exceed --rear-max-count (${s.rearMaxCount})`);
    return { kind: 'aggregatable', unit: resourcesOf(s.rearUnit, '--rear-unit'), minCount: s.rearMinCount, maxCount: s.rearMaxCount };
  }
  return { kind: 'partitionable', min: resourcesOf(s.rearMin, '--rear-min'), step: resourcesOf(s.rearStep, '--rear-step') };
}

export function catalogueOf(s: RearSettings, cluster: string, domain: string): CatalogueConfig {
  const rate: Record<string, number> = {};
  for (const [key, amount] of pairs(s.rearPriceRate, '--rear-price-rate')) {
    const n = Number(amount);
    if (!['cpu', 'memory', 'storage', 'gpu'].includes(key) || !(n >= 0)) throw new EdgeshifuError('invalid', `--rear-price-rate entry "${key}=${amount}" must be cpu, memory, storage or gpu = a number >= 0`);
    rate[key] = n;
  }
  return {
    owner: { cluster, domain, address: s.rearAddress }, type: s.rearFlavourType, architecture: s.rearArchitecture, policy: policyOf(s),
    rate: { currency: s.rearCurrency, period: s.rearPeriod as Period, perCpu: rate.cpu ?? 0, perGiB: rate.memory ?? 0, perStorageGiB: rate.storage ?? 0, perGpu: rate.gpu ?? 0 },
    storage: quantityOf('storage', s.rearStorage, '--rear-storage'), gpu: s.rearGpu,
  };
}

export function termsOf(s: RearSettings): Terms {
  if (s.rearContractSeconds > s.rearMaxContractSeconds) throw new EdgeshifuError('invalid', `--rear-contract-seconds (${s.rearContractSeconds}) must not exceed --rear-max-contract-seconds (${s.rearMaxContractSeconds})`);
  return { reservationMs: s.rearReservationSeconds * 1000, contractMs: s.rearContractSeconds * 1000, maxContractMs: s.rearMaxContractSeconds * 1000 };
}

export function topologyOf(s: RearSettings, self: string, domain: string): Topology {
  const supernode = s.rearSupernode ?? self;
  if (supernode !== self && (s.rearMembers !== '' || s.rearSupernodes !== '')) throw new EdgeshifuError('invalid', '--rear-members and --rear-supernodes are for a supernode: leave them out when --rear-supernode names another cluster');
  const members = s.rearMembers.split(',').filter((m) => m !== '' && m !== self);
  return { self, domain, supernode, ...(supernode === self ? { members, supernodes: new Map(pairs(s.rearSupernodes, '--rear-supernodes')) } : {}) };
}
