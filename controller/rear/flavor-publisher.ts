// The provider's Flavor resources follow what is on sale (thin shell): the desired objects come
// from the flavours (pure `flavorObjects`), are applied server-side, and those no longer on sale
// (reserved, shrunk, withdrawn) are deleted, so `kubectl get flavors` is the Available Resources
// table of the REAR workflow.
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { FlavorSpec } from '../../shared/crds/rear.ts';
import type { Flavour } from './core/model.ts';
import { toQuantities } from './quantities.ts';

export const FLAVOR_LABEL = 'rear.edgeshifu.io/provider';
const PATH = `/apis/${API_VERSION}/flavors`;

export function flavorSpec(f: Flavour): FlavorSpec {
  const p = f.policy;
  const q = (r: Flavour['characteristics']): FlavorSpec['characteristics'] => toQuantities(r);
  return {
    flavorID: f.id, flavorType: f.type, architecture: f.architecture, characteristics: q(f.characteristics),
    policy: p.kind === 'partitionable' ? { partitionable: { min: q(p.min), step: q(p.step) } } : { aggregatable: { minCount: p.minCount, maxCount: p.maxCount } },
    ...(f.units === undefined ? {} : { units: f.units }),
    owner: { domain: f.owner.domain, nodeID: f.owner.cluster, address: f.owner.address },
    price: { amount: String(f.price.amount), currency: f.price.currency, period: f.price.period },
    availability: f.available,
  };
}

/** The Flavor objects for what is on sale: one per flavour, named by its id. */
export function flavorObjects(flavours: readonly Flavour[]): Array<KubernetesObject & { spec: FlavorSpec }> {
  return flavours.map((f) => ({ apiVersion: API_VERSION, kind: 'Flavor', metadata: { name: f.id, labels: { [FLAVOR_LABEL]: f.owner.cluster } }, spec: flavorSpec(f) }));
}

export class FlavorPublisher {
  private readonly client: KubeClient;
  private readonly cluster: string;

  constructor(client: KubeClient, cluster: string) {
    this.client = client;
    this.cluster = cluster;
  }

  /** Applies the flavours on sale and deletes the Flavors that are not. */
  async sync(flavours: readonly Flavour[]): Promise<void> {
    const desired = flavorObjects(flavours);
    for (const object of desired) {
      await this.client.request('PATCH', `${PATH}/${object.metadata?.name ?? ''}`, { body: object, contentType: 'application/apply-patch+yaml', query: { fieldManager: 'edgeshifu-rear', force: true } });
    }
    const keep = new Set(desired.map((o) => o.metadata?.name));
    const existing = await this.client.request<KubernetesListObject<KubernetesObject>>('GET', PATH, { query: { labelSelector: `${FLAVOR_LABEL}=${this.cluster}` } });
    for (const stale of existing.items) {
      const name = stale.metadata?.name ?? '';
      if (!keep.has(name)) await this.client.request('DELETE', `${PATH}/${name}`).catch(() => undefined);
    }
  }
}
