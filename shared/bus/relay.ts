// Federation relay (issue 7, "Federation between clusters"; the thesis used RabbitMQ federation):
// reads everything federated on its cluster's own broker and pushes it to each neighbour's broker
// under its own id (`edgeshifu/v1/<self>/relay/<origin>/...`), one hop more. Ids already relayed
// and messages at the hop limit stop here, so a multi-hop federation works and loops do not.
// Messages addressed to this cluster, local traffic and what a neighbour itself wrote or relayed
// are not pushed back to it. A relay forwards the bytes it received with only `hops` raised
// (codec.ts framing): no encoding per hop, and the sender's signature still holds at the far end.
import type { Logger } from '../log.ts';
import { BusClient, type BusOptions, type BusTls } from './client.ts';
import { withHops, type MessageCodec } from './codec.ts';
import { MAX_HOPS, type Envelope } from './envelope.ts';
import type { BusMetrics } from './metrics.ts';
import { RELAY_FILTERS, relayTopicOf, type TopicInfo } from './topics.ts';

export interface Neighbour {
  readonly cluster: string;
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly tls?: BusTls;
}

export interface RelayOptions<M extends Envelope = Envelope> {
  readonly cluster: string;
  /**
   * Connection to this cluster's own broker (as its owner), or a client to share with the agent
   * (started, as the owner, without `ignoreOwn`; the relay neither starts nor stops it). Shared,
   * the broker sends each message once to the cluster, not once to the relay and once to the agent.
   */
  readonly local: Omit<BusOptions, 'cluster' | 'link' | 'logger' | 'metrics' | 'signal'> | BusClient<M>;
  readonly neighbours: readonly Neighbour[];
  readonly maxHops?: number;
  /** QoS towards the neighbours' brokers (BusOptions.qos; the local link takes `local.qos`). */
  readonly qos?: 0 | 1;
  readonly logger?: Logger;
  readonly metrics?: BusMetrics;
  readonly signal?: AbortSignal;
}

export class FederationRelay<M extends Envelope> {
  private readonly options: RelayOptions<M>;
  private readonly codec: MessageCodec<M>;
  private readonly links = new Map<string, { neighbour: Neighbour; client: BusClient<M> }>();
  private local?: BusClient<M>;
  /** Learned next hop towards each cluster: the neighbour its traffic first came from (reverse path). */
  private readonly routes = new Map<string, string>();
  private stopped = false;
  /** Relayed messages, for tests and the benchmark. */
  forwarded = 0;

  constructor(options: RelayOptions<M>, codec: MessageCodec<M>) {
    this.options = options;
    this.codec = codec;
  }

  async start(): Promise<void> {
    const o = this.options;
    const shared = o.local instanceof BusClient;
    const local = o.local instanceof BusClient ? o.local : new BusClient<M>({ ...o.local, cluster: o.cluster, link: 'relay-local', ...this.common() }, this.codec);
    if (!shared) {
      this.local = local;
      await local.start();
    }
    await this.setNeighbours(o.neighbours);
    // Receivers check signatures; the relay forwards the bytes as they came.
    await local.subscribe(RELAY_FILTERS, (message, info, payload) => { this.forward(message, info, payload); }, { verify: false });
  }

  private common(): Pick<BusOptions, 'logger' | 'metrics' | 'signal'> {
    const o = this.options;
    return { ...(o.logger === undefined ? {} : { logger: o.logger }), ...(o.metrics === undefined ? {} : { metrics: o.metrics }), ...(o.signal === undefined ? {} : { signal: o.signal }) };
  }

  /** Adds, replaces and removes neighbour links (the Federation resources changed). */
  async setNeighbours(neighbours: readonly Neighbour[]): Promise<void> {
    const wanted = new Map(neighbours.map((n) => [n.cluster, n]));
    for (const [cluster, link] of [...this.links]) {
      if (JSON.stringify(wanted.get(cluster)) === JSON.stringify(link.neighbour)) continue;
      this.links.delete(cluster);
      await link.client.stop();
    }
    for (const neighbour of neighbours) {
      if (this.links.has(neighbour.cluster)) continue;
      const client = new BusClient<M>({
        url: neighbour.url, cluster: this.options.cluster, link: `relay-${neighbour.cluster}`,
        ...(neighbour.username === undefined ? {} : { username: neighbour.username }),
        ...(neighbour.password === undefined ? {} : { password: neighbour.password }),
        ...(neighbour.tls === undefined ? {} : { tls: neighbour.tls }),
        ...(this.options.qos === undefined ? {} : { qos: this.options.qos }),
        ...this.common(),
      }, this.codec);
      this.links.set(neighbour.cluster, { neighbour, client });
      // A neighbour that is down now is retried in the background; the federation goes on without it.
      client.start().catch((err: unknown) => { this.options.logger?.warn({ neighbour: neighbour.cluster, err: err instanceof Error ? err.message : String(err) }, 'cannot reach a neighbour broker'); });
    }
  }

  private forward(message: M, info: TopicInfo, payload: Buffer): void {
    const maxHops = Math.min(this.options.maxHops ?? 8, MAX_HOPS);
    if (this.stopped || message.hops >= maxHops || info.scope === 'local') return;
    if (info.scope === 'to' && info.recipient === this.options.cluster) return;
    this.learn(info);
    let next: Buffer | undefined;
    let topic: string | undefined;
    for (const [cluster, link] of this.targets(info)) {
      if (cluster === info.publisher || cluster === message.sender || !link.client.connected) continue;
      topic ??= relayTopicOf(this.options.cluster, info);
      next ??= withHops(payload, message.hops + 1) ?? this.codec.encode({ ...message, hops: message.hops + 1 });
      this.forwarded += 1;
      link.client.publishPayload(topic, next, message.kind).catch((err: unknown) => {
        this.options.logger?.warn({ neighbour: cluster, err: err instanceof Error ? err.message : String(err) }, 'relay publish failed');
      });
    }
  }

  private learn(info: TopicInfo): void {
    const current = this.routes.get(info.origin);
    const up = current !== undefined && this.links.get(current)?.client.connected === true;
    if (info.publisher !== this.options.cluster && this.links.has(info.publisher) && !up) this.routes.set(info.origin, info.publisher);
  }

  /** A directed message goes only towards its recipient when a live route is known; everything else is flooded. */
  private targets(info: TopicInfo): Array<[string, { neighbour: Neighbour; client: BusClient<M> }]> {
    const via = info.scope === 'to' && info.recipient !== undefined ? this.routes.get(info.recipient) : undefined;
    const link = via === undefined ? undefined : this.links.get(via);
    if (via !== undefined && link?.client.connected === true) return [[via, link]];
    return [...this.links];
  }

  /** How many neighbour links are connected now. */
  linksUp(): number {
    return [...this.links.values()].filter((l) => l.client.connected).length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.local?.stop();
    this.local = undefined;
    for (const link of this.links.values()) await link.client.stop();
    this.links.clear();
  }
}
