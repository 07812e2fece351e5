// A federation on real brokers: each cluster has its own broker (aedes by default, or any URL
// such as a Mosquitto), its agent on it, and a relay pushing federation traffic to the brokers
// of its neighbours. Used by the federation tests and the benchmark.
import type { BusClient, BusOptions } from '../../../shared/bus/client.ts';
import { FederationRelay, type Neighbour } from '../../../shared/bus/relay.ts';
import { DroneAgent, type DroneBus } from '../../../controller/drone/agent.ts';
import { DEFAULT_TIMERS, type DroneConfig, type DroneEvent, type Timers } from '../../../controller/drone/agent-core.ts';
import { asDroneBus, droneBusClient } from '../../../controller/drone/bus.ts';
import { DRONE_SCHEMAS, droneCodec, type DroneBody, type DroneMessage } from '../../../controller/drone/messages/index.ts';
import { envelopeCodec } from '../../../shared/bus/codec.ts';
import type { Envelope } from '../../../shared/bus/envelope.ts';
import type { Resources } from '../../../controller/drone/model.ts';
import type { EmbeddedBroker } from '../../../shared/bus/broker.ts';
import type { RateLimit } from '../../../shared/bus/guard.ts';
import { waitFor } from '../../support/wait.ts';
import { password, startAedes } from './brokers.ts';

export type Cleanup = (fn: () => Promise<void> | void) => void;

/** What tests and the benchmark use of a relay. */
export type RelayHandle = Pick<FederationRelay<Envelope>, 'forwarded' | 'linksUp' | 'stop'>;

export interface FederatedCluster {
  readonly id: string;
  readonly url: string;
  readonly agent: DroneAgent;
  /** The agent's bus client (shared with the relay unless `sharedConnection` is false). */
  readonly client: BusClient<DroneMessage>;
  readonly relay?: RelayHandle;
  readonly decisions: DroneEvent[];
  readonly broker?: EmbeddedBroker;
}

export interface FederationSpec {
  readonly ids: readonly string[];
  /** Undirected links; each side relays to the other. */
  readonly edges: ReadonlyArray<readonly [string, string]>;
  readonly free: (id: string) => Resources;
  readonly scalePercent?: number;
  readonly mode?: DroneConfig['mode'];
  /** A broker URL to use instead of an embedded aedes (e.g. Mosquitto), per cluster. */
  readonly brokerUrl?: (id: string) => string | undefined;
  /** false: no relays (e.g. a Mosquitto bridge or a shared broker carries the traffic). */
  readonly relays?: boolean;
  readonly maxHops?: number;
  readonly timers?: Partial<Timers>;
  /** Providers an origin calls per round (DroneConfig.fanout); the agent's default when absent. */
  readonly fanout?: number;
  /** Sees every message an agent publishes (the benchmark times agreement with it). */
  readonly tap?: (cluster: string, topic: string, body: DroneBody) => void;
  /** Stands between an agent and its bus (a test drops or repeats some of what the agent publishes). */
  readonly wrap?: (cluster: string, bus: DroneBus) => DroneBus;
  /** false: relays flood broadcasts over every link instead of a tree per origin. */
  readonly tree?: boolean;
  /** false: the relay has a connection of its own to the cluster's broker, instead of sharing the agent's (default true). */
  readonly sharedConnection?: boolean;
  /** More options for each cluster's bus clients (agent and relay): QoS, keyring, metrics. A relay of its own takes only the QoS. */
  readonly bus?: (id: string) => Pick<BusOptions, 'qos' | 'keyring' | 'metrics' | 'limits' | 'replayWindow'>;
  /** DroneAgentOptions.multicast; default: on, unless clusters share a broker (only its owner may read multi-recipient topics). */
  readonly multicast?: boolean;
  /** Each embedded aedes broker's pace per neighbour login (EmbeddedBrokerOptions.pace). */
  readonly pace?: RateLimit;
  /** An embedded broker of this process for a cluster whose `brokerUrl` is given (the benchmark starts them itself). */
  readonly embedded?: (id: string) => EmbeddedBroker | undefined;
  /** false: the agent and relay reach their own embedded broker over TCP like any client, not in memory (BusOptions.broker; default true). */
  readonly inProcess?: boolean;
  /** The clusters whose relays and agents run here (default: all); the others run elsewhere, e.g. in another process, and `brokerUrl` names their brokers. */
  readonly hosted?: readonly string[];
}

const codec = droneCodec();
const relayCodec = envelopeCodec(Object.keys(DRONE_SCHEMAS));

function tapped(cluster: string, bus: DroneBus, tap: FederationSpec['tap']): DroneBus {
  if (tap === undefined) return bus;
  return { subscribe: (f, h) => bus.subscribe(f, h), publish: (topic, body) => { tap(cluster, topic, body); return bus.publish(topic, body); } };
}

export function neighboursOf(id: string, edges: FederationSpec['edges']): string[] {
  return edges.flatMap(([a, b]) => (a === id ? [b] : b === id ? [a] : []));
}

async function brokers(spec: FederationSpec, cleanup: Cleanup): Promise<Map<string, { url: string; broker?: EmbeddedBroker }>> {
  const out = new Map<string, { url: string; broker?: EmbeddedBroker }>();
  const hosted = new Set(spec.hosted ?? spec.ids);
  for (const id of spec.ids) {
    const external = spec.brokerUrl?.(id);
    if (external !== undefined) {
      const broker = spec.embedded?.(id);
      out.set(id, { url: external, ...(broker === undefined ? {} : { broker }) });
      continue;
    }
    if (!hosted.has(id)) throw new Error(`cluster ${id} runs elsewhere: give its broker URL`);
    const b = await startAedes(id, spec.ids, spec.pace === undefined ? {} : { pace: spec.pace });
    cleanup(() => b.broker.stop());
    out.set(id, { url: b.url, broker: b.broker });
  }
  return out;
}

interface Links { readonly client: BusClient<DroneMessage>; readonly relay?: RelayHandle }

/** A cluster's bus client and its relay: sharing one connection to the cluster's broker unless `sharedConnection` is false. */
async function connect(spec: FederationSpec, id: string, urls: Map<string, { url: string; broker?: EmbeddedBroker }>, cleanup: Cleanup): Promise<Links> {
  const url = urls.get(id)?.url ?? '';
  const shared = spec.sharedConnection !== false && spec.relays !== false;
  const embedded = spec.inProcess === false ? undefined : urls.get(id)?.broker;
  const extra = { ...spec.bus?.(id), ...(embedded === undefined ? {} : { broker: embedded }) };
  const client = droneBusClient({ url, cluster: id, username: id, password: password(id), link: 'agent', backoff: { initialMs: 50, maxMs: 500 }, ignoreOwn: !shared, ...extra }, codec);
  cleanup(() => client.stop());
  await client.start();
  if (spec.relays === false) return { client };
  const neighbours: Neighbour[] = neighboursOf(id, spec.edges).map((n) => ({ cluster: n, url: urls.get(n)?.url ?? '', username: id, password: password(id) }));
  const common = {
    cluster: id, neighbours, ...(spec.maxHops === undefined ? {} : { maxHops: spec.maxHops }), ...(extra.qos === undefined ? {} : { qos: extra.qos }),
    ...(spec.tree === undefined ? {} : { tree: spec.tree }),
  };
  const relay = shared
    ? new FederationRelay<DroneMessage>({ ...common, local: client }, codec)
    : new FederationRelay<Envelope>({ ...common, local: { url, username: id, password: password(id), ...(extra.qos === undefined ? {} : { qos: extra.qos }), ...(embedded === undefined ? {} : { broker: embedded }) }, publisher: client }, relayCodec);
  cleanup(() => relay.stop());
  await relay.start();
  return { client, relay };
}

export async function startFederation(spec: FederationSpec, cleanup: Cleanup): Promise<Map<string, FederatedCluster>> {
  const urls = await brokers(spec, cleanup);
  const hosted = spec.hosted ?? spec.ids;
  const links = new Map<string, Links>();
  for (const id of hosted) links.set(id, await connect(spec, id, urls, cleanup));
  for (const [id, { relay }] of links) {
    const want = neighboursOf(id, spec.edges).length;
    if (relay !== undefined) await waitFor(`relay links of ${id}`, () => (relay.linksUp() === want ? true : undefined), { timeoutMs: 20_000 });
  }
  const clusters = new Map<string, FederatedCluster>();
  const brokersShared = new Set([...urls.values()].map((u) => u.url)).size < spec.ids.length;
  for (const [id, { client, relay }] of links) {
    const agent = new DroneAgent({
      config: { cluster: id, mode: spec.mode ?? 'open', scalePercent: spec.scalePercent ?? 100, weights: new Map(), ...DEFAULT_TIMERS, ...spec.timers, ...(spec.fanout === undefined ? {} : { fanout: spec.fanout }) },
      free: spec.free(id),
      bus: spec.wrap === undefined ? tapped(id, asDroneBus(client), spec.tap) : spec.wrap(id, tapped(id, asDroneBus(client), spec.tap)),
      multicast: spec.multicast ?? !brokersShared,
    });
    cleanup(() => { agent.stop(); });
    const decisions: DroneEvent[] = [];
    agent.on('decision', (e) => decisions.push(e));
    const broker = urls.get(id)?.broker;
    clusters.set(id, { id, url: urls.get(id)?.url ?? '', agent, client, decisions, ...(relay === undefined ? {} : { relay }), ...(broker === undefined ? {} : { broker }) });
  }
  for (const c of clusters.values()) await c.agent.start();
  return clusters;
}

/** Waits until every agent has a live slice advert from every other cluster that offers something (`timeoutMs` for all of them). */
export async function waitForAdverts(clusters: ReadonlyMap<string, FederatedCluster>, offering: readonly string[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const c of clusters.values()) {
    const want = offering.filter((o) => o !== c.id).sort();
    await waitFor(`slice adverts at ${c.id}`, () => (JSON.stringify(c.agent.providers()) === JSON.stringify(want) ? true : undefined), { timeoutMs: Math.max(0, deadline - Date.now()) });
  }
}

export function outcomeOf(cluster: FederatedCluster, app: string): DroneEvent | undefined {
  return cluster.decisions.find((e) => (e.type === 'placed' || e.type === 'failed') && e.app === app);
}
