// Two real control planes for REAR's peering, and aedes on 127.0.0.1: a consumer `cons` running
// the virtual nodes' and carried pods' reconcilers, a provider `prov` with one KWOK node, its
// Market (the contracts) and its PeeringHost. Contracts are bought from the Market and written on
// the consumer as Contract resources, as the Solver reconciler does after a purchase.
import { BUYER_LABEL } from '../../controller/rear/buyer-records.ts';
import type { V1Deployment } from '@kubernetes/client-node';
import { BusClient } from '../../shared/bus/client.ts';
import { fileURLToPath } from 'node:url';
import { endpointFromKubeconfig, KubeClient } from '../../shared/kube/client.ts';
import { createLogger, type Logger } from '../../shared/log.ts';
import { Registry } from '../../shared/prometheus.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import { Market } from '../../controller/rear/market.ts';
import { rearCodec, type RearMessage } from '../../controller/rear/messages/index.ts';
import { Peering } from '../../controller/rear/peering/peering.ts';
import { PeeringHost } from '../../controller/rear/peering/peering-host.ts';
import { toQuantities } from '../../controller/rear/quantities.ts';
import type { SignedContract } from '../../controller/rear/contract-signing.ts';
import type { HostingPolicy } from '../../controller/offload/admission.ts';
import type { ContractResource } from '../../controller/rear/peering/virtual-node.ts';
import { startCluster, type TestCluster } from '../support/controlplane/cluster.ts';
import { Kube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { kubectl } from '../support/kubectl.ts';
import { password, startAedes } from '../drone/support/brokers.ts';
import { keyringFor } from '../drone/support/keys.ts';
import { partitionable, r, slice, terms } from './fixtures.ts';

export const CONSUMER = 'cons';
export const PROVIDER = 'prov';
export const IMAGES = 'docker.io/library/';
export const CONTRACTS = 'contracts';

export interface PeeringWorld {
  consumer: Kube;
  provider: Kube;
  market: Market;
  host: PeeringHost;
  peering: Peering;
  /** Stops the consumer's reconcilers and starts them again (a controller restart). */
  restartConsumer: () => Promise<void>;
  stop: () => Promise<void>;
}

const MANIFESTS = fileURLToPath(new URL('../../manifests/', import.meta.url));
/** Exactly the roles REAR's peering runs with (manifests/overlays/federation-member/rear-peering.yaml), not DRONE's. */
const ROLES = ['controller/namespaces.yaml', 'controller/rbac.yaml', 'overlays/federation-member/rear.yaml', 'overlays/federation-member/rear-peering.yaml'];

/** A client on the controller's ServiceAccount token, with only the roles above. */
async function serviceAccountClient(kube: Kube): Promise<KubeClient> {
  for (const file of ROLES) {
    const result = await kubectl(kube.kubeconfigPath, ['apply', '-f', `${MANIFESTS}${file}`]);
    if (result.code !== 0) throw new Error(result.stderr);
  }
  const token = await kube.core.createNamespacedServiceAccountToken({ namespace: 'edgeshifu-system', name: 'edgeshifu-controller', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const admin = endpointFromKubeconfig(kube.kubeconfigPath);
  return new KubeClient({ server: admin.server, ca: admin.ca, token: token.status?.token });
}

const logger = (name: string): Logger => createLogger(name, { level: process.env.EDGESHIFU_TEST_DEBUG === undefined ? 'silent' : 'debug' });

async function busFor(url: string, self: string, stops: Array<() => Promise<void>>): Promise<BusClient<RearMessage>> {
  const keyring = keyringFor(self, [CONSUMER, PROVIDER].filter((c) => c !== self), true);
  const bus = new BusClient<RearMessage>({ url, cluster: self, username: self, password: password(self), keyring, replayWindow: { pastMs: 30_000, futureMs: 5_000 }, backoff: { initialMs: 50, maxMs: 200 } }, rearCodec());
  await bus.start();
  stops.push(() => bus.stop());
  return bus;
}

export async function peeringWorld(options: { resendMs?: number; endGraceMs?: number; offered?: typeof slice.offered } = {}): Promise<PeeringWorld> {
  const { offered, ...timers } = options;
  const selling = offered === undefined ? slice : { ...slice, offered };
  const stops: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => { for (const s of stops.reverse()) await s().catch(() => undefined); };
  try {
    const clusters: TestCluster[] = await Promise.all([startCluster({ name: 'rear-consumer' }), startCluster({ name: 'rear-provider' })]);
    for (const c of clusters) stops.push(() => c.stop());
    const [consumerCluster, providerCluster] = clusters as [TestCluster, TestCluster];
    const consumer = new Kube(consumerCluster.kubeconfigPath);
    const provider = new Kube(providerCluster.kubeconfigPath);
    await Promise.all([installCrds(consumer), provider.addNode('prov-node-1', { cpu: '8', memory: '16Gi', pods: '110' })]);
    await consumer.core.createNamespace({ body: { metadata: { name: CONTRACTS } } });
    const { broker, url } = await startAedes('owner', [CONSUMER, PROVIDER, 'owner']);
    stops.push(() => broker.stop());

    const market = new Market({ config: { ...partitionable, owner: { cluster: PROVIDER, domain: 'domain-b', address: 'https://127.0.0.1:9443' } }, terms, slice: () => selling, keyring: keyringFor(PROVIDER, [CONSUMER], true) });
    const providerClient = await serviceAccountClient(provider);
    stops.push(() => { providerClient.close(); return Promise.resolve(); });
    const policy: HostingPolicy = { level: 'restricted', images: [IMAGES] };
    const host = new PeeringHost({ client: providerClient, bus: await busFor(url, PROVIDER, stops), cluster: PROVIDER, contracts: () => market.current().contracts, policyOf: (buyer) => (buyer === CONSUMER ? policy : undefined), logger: logger('prov'), sweepMs: 250 });
    await host.start();
    stops.push(() => host.stop());

    const consumerClient = await serviceAccountClient(consumer);
    stops.push(() => { consumerClient.close(); return Promise.resolve(); });
    const consumerBus = await busFor(url, CONSUMER, stops);
    const make = (): Peering => new Peering({ client: consumerClient, bus: consumerBus, settings: { cluster: CONSUMER, ...timers }, logger: logger('cons'), registry: new Registry() });
    const world: PeeringWorld = {
      consumer, provider, market, host, peering: make(), stop,
      restartConsumer: async () => {
        await world.peering.stop();
        world.peering = make();
        await world.peering.start();
      },
    };
    await world.peering.start();
    stops.push(() => world.peering.stop());
    return world;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Buys `cpu` millicores and `memory` MiB for `durationMs` from the provider's Market. */
export async function buy(market: Market, want: { cpu: number; memory: number; durationMs?: number; pods?: number }): Promise<SignedContract> {
  const { cpu, memory, durationMs = 3_600_000, pods = 4 } = want;
  const flavour = market.flavours()[0];
  if (flavour === undefined) throw new Error('nothing on sale');
  const transaction = await market.reserve({ flavourId: flavour.id, buyer: CONSUMER, take: { partition: r(cpu, memory, pods) } });
  return market.purchase({ transactionId: transaction.transactionId, flavourId: flavour.id, buyer: CONSUMER, durationMs });
}

/** The consumer's Contract resource for a signed contract. */
export function contractObject(signed: SignedContract, name: string): ContractResource {
  const c = signed.contract;
  const q = toQuantities(c.resources);
  return {
    apiVersion: API_VERSION, kind: 'Contract', metadata: { name, namespace: CONTRACTS, labels: { [BUYER_LABEL]: c.buyer } },
    spec: {
      contractID: c.contractId, transactionID: c.transactionId, flavorID: c.flavourId, buyer: c.buyer,
      seller: { domain: c.seller.domain, nodeID: c.seller.cluster, address: c.seller.address },
      resources: { cpu: q.cpu, memory: q.memory, pods: q.pods }, architecture: c.architecture,
      price: { amount: String(c.price.amount), currency: c.price.currency, period: c.price.period },
      startTime: new Date(c.startTime).toISOString(), expiresAt: new Date(c.expiresAt).toISOString(),
      peering: c.peering, signatures: { seller: signed.signatures.seller },
    },
  };
}

export async function createContract(kube: Kube, signed: SignedContract, name: string): Promise<ContractResource> {
  const created: unknown = await kube.custom.createNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: CONTRACTS, plural: 'contracts', body: contractObject(signed, name) });
  return created as ContractResource;
}

/** A Deployment whose pods tolerate the contract's taint and ask for its virtual node. */
export function carriedDeployment(name: string, namespace: string, on: { node: string; contractId: string; replicas?: number }): V1Deployment {
  const { node, contractId, replicas = 1 } = on;
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': node },
          tolerations: [{ key: 'rear.edgeshifu.io/contract', operator: 'Equal', value: contractId, effect: 'NoSchedule' }],
          containers: [{ name: 'web', image: `${IMAGES}nginx:1.27`, resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
        },
      },
    },
  };
}
