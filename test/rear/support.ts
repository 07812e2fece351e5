// A REAR federation for tests on a real broker (aedes on 127.0.0.1): consumers cons-1 and cons-2
// and supernode sn-a in domain-a, supernode sn-b and provider prov-1 in domain-b, and mallory, a
// broker login that is no member (its key is known to nobody).
import type { ExecutionContext } from 'ava';
import { BusClient } from '../../shared/bus/client.ts';
import { busMetrics } from '../../shared/bus/metrics.ts';
import { Registry } from '../../shared/prometheus.ts';
import { Market } from '../../controller/rear/market.ts';
import { RearNode } from '../../controller/rear/rear-node.ts';
import type { Topology } from '../../controller/rear/flows/routing.ts';
import { rearCodec, type RearMessage } from '../../controller/rear/messages/index.ts';
import { samples } from '../support/metric-samples.ts';
import { password, startAedes } from '../drone/support/brokers.ts';
import { keyringFor } from '../drone/support/keys.ts';
import { partitionable, slice, terms } from './fixtures.ts';

export const CLUSTERS = ['cons-1', 'cons-2', 'sn-a', 'sn-b', 'prov-1', 'mallory'];
export const TRUSTED = CLUSTERS.filter((c) => c !== 'mallory');
export const codec = rearCodec();
const domainA = { domain: 'domain-a', supernode: 'sn-a' };
const domainB = { domain: 'domain-b', supernode: 'sn-b' };
const TOPOLOGY: Record<string, Topology> = {
  'cons-1': { self: 'cons-1', ...domainA },
  'cons-2': { self: 'cons-2', ...domainA },
  'sn-a': { self: 'sn-a', ...domainA, members: ['cons-1', 'cons-2'], supernodes: new Map([['domain-b', 'sn-b']]) },
  'sn-b': { self: 'sn-b', ...domainB, members: ['prov-1'], supernodes: new Map([['domain-a', 'sn-a']]) },
  'prov-1': { self: 'prov-1', ...domainB },
};

export interface Cluster { node: RearNode; bus: BusClient<RearMessage>; registry: Registry; market?: Market }

export async function join(t: ExecutionContext, url: string, self: string, market?: Market): Promise<Cluster> {
  const registry = new Registry();
  const keyring = keyringFor(self, TRUSTED.filter((c) => c !== self), true);
  const bus = new BusClient<RearMessage>({ url, cluster: self, username: self, password: password(self), keyring, replayWindow: { pastMs: 30_000, futureMs: 5_000 }, metrics: busMetrics(registry), backoff: { initialMs: 50, maxMs: 200 } }, codec);
  await bus.start();
  t.teardown(() => bus.stop());
  const topology = TOPOLOGY[self];
  if (topology === undefined) throw new Error(self);
  const node = new RearNode({ bus, topology, keyring, ...(market === undefined ? {} : { market }), replyTimeoutMs: 500, attempts: 6 });
  await node.start();
  return { node, bus, registry, ...(market === undefined ? {} : { market }) };
}

export function providerMarket(): Market {
  const config = { ...partitionable, owner: { cluster: 'prov-1', domain: 'domain-b', address: 'https://127.0.0.1:9443' } };
  return new Market({ config, terms, slice: () => slice, keyring: keyringFor('prov-1', TRUSTED.filter((c) => c !== 'prov-1'), true) });
}

export async function federation(t: ExecutionContext): Promise<{ url: string; c: Record<string, Cluster> }> {
  const { broker, url } = await startAedes('owner', [...CLUSTERS, 'owner']);
  t.teardown(() => broker.stop());
  const c: Record<string, Cluster> = {};
  for (const self of ['sn-a', 'sn-b', 'cons-1', 'cons-2']) c[self] = await join(t, url, self);
  c['prov-1'] = await join(t, url, 'prov-1', providerMarket());
  return { url, c };
}

export const dropped = (cl: Cluster, reason: string): number => samples(cl.registry, 'edgeshifu_bus_messages_dropped_total').find((s) => s.labels.reason === reason)?.value ?? 0;
export const get = (c: Record<string, Cluster>, k: string): Cluster => { const v = c[k]; if (v === undefined) throw new Error(k); return v; };
