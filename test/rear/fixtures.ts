// Shared inputs of the REAR unit tests: one provider's configuration and slices.
import type { CatalogueConfig } from '../../controller/rear/core/flavours.ts';
import type { Terms } from '../../controller/rear/core/provider.ts';
import type { RearResources } from '../../controller/rear/core/model.ts';

export const r = (cpu: number, memory: number, pods = 0, storage = 0): RearResources => ({ cpu, memory, pods, storage, gpu: 0 });

export const partitionable: CatalogueConfig = {
  owner: { cluster: 'prov-1', domain: 'domain-b', address: 'https://127.0.0.1:9443' },
  type: 'K8Slice',
  architecture: 'amd64',
  policy: { kind: 'partitionable', min: r(500, 512, 1), step: r(250, 256, 1) },
  rate: { currency: 'EUR', period: 'hourly', perCpu: 0.04, perGiB: 0.01 },
  storage: 10_240,
  gpu: 0,
};

export const aggregatable: CatalogueConfig = {
  ...partitionable,
  policy: { kind: 'aggregatable', unit: r(1000, 1024, 2), minCount: 1, maxCount: 3 },
};

export const terms: Terms = { reservationMs: 30_000, contractMs: 3_600_000, maxContractMs: 86_400_000 };

/** 4 cpu, 8 GiB, 20 pods offered, nothing held. */
export const slice = { offered: { cpu: 4000, memory: 8192, pods: 20 }, held: [] as RearResources[] };
