// Federation relay (the role RabbitMQ federation played in the thesis, controller/drone/README.md):
// reads everything federated on its cluster's own broker and pushes it to each neighbour's broker
// under its own id (`edgeshifu/v1/<self>/relay/<origin>/...`), one hop more. Ids already relayed
// and messages at the hop limit stop here, so a multi-hop federation works and loops do not.
// Messages addressed to this cluster, local traffic and what a neighbour itself wrote or relayed
// are not pushed back to it. A relay forwards the bytes it received with only `hops` raised
// (codec.ts framing): no encoding per hop, and the sender's signature still holds at the far end.
// Broadcasts follow a tree per origin (routes.ts, built from the lists route-lists.ts exchanges)
// rather than every link, once the neighbours have told each other where they get each origin's
// traffic; directed messages follow the reverse path, and a multi-recipient message goes once over
// each link on the way to its recipients.
import type { Logger } from '../log.ts';
import { BusClient, type BusOptions, type BusTls } from './client.ts';
import { withHops, type MessageCodec } from './codec.ts';
import { SeenIds } from './dedup.ts';
import { MAX_HOPS, type Envelope } from './envelope.ts';
import type { BusMetrics } from './metrics.ts';
import { RouteLists } from './route-lists.ts';
import { splitByNextHop } from './routes.ts';
import { RELAY_FILTERS, relayTopicOf, type TopicInfo } from './topics.ts';
import { errorMessage } from '../errors.ts';

export interface Neighbour {
  readonly cluster: string;
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly tls?: BusTls;
  /** Plain mqtt:// to a host off this machine accepted (BusOptions.allowInsecure). */
  readonly insecure?: boolean;
}

export interface RelayOptions<M extends Envelope = Envelope> {
  readonly cluster: string;
  /**
   * Connection to this cluster's own broker (as its owner), or a client to share with the agent
   * (started, as the owner, without `ignoreOwn`; the relay neither starts nor stops it). Shared,
   * the broker sends each message once to the cluster, not once to the relay and once to the agent.
   */
  readonly local: Omit<BusOptions, 'cluster' | 'link' | 'logger' | 'metrics' | 'signal'> | BusClient<M>;
  /**
   * The agent's client when it does not share `local`: what it publishes is forwarded as it goes
   * out, not once the cluster's broker has echoed it back (a shared `local` client is followed so
   * by itself). Either way the echo is not forwarded again.
   */
  readonly publisher?: Pick<BusClient<M>, 'onPublish'>;
  readonly neighbours: readonly Neighbour[];
  readonly maxHops?: number;
  /** QoS towards the neighbours' brokers (BusOptions.qos; the local link takes `local.qos`). */
  readonly qos?: 0 | 1;
  /** false: flood broadcasts over every link instead of a tree per origin (routes.ts). */
  readonly tree?: boolean;
  /** How long a neighbour's route list holds (sent again every third of it, and on every change). */
  readonly routesTtlMs?: number;
  readonly logger?: Logger;
  readonly metrics?: BusMetrics;
  readonly signal?: AbortSignal;
}

// Lists are sent again on every change and when a link comes up, over TCP: the refresh only covers
// what a reconnection lost, so it can be slow.
const ROUTES_TTL_MS = 30_000;

export class FederationRelay<M extends Envelope> {
  private readonly options: RelayOptions<M>;
  private readonly codec: MessageCodec<M>;
  private readonly links = new Map<string, { neighbour: Neighbour; client: BusClient<M> }>();
  private local?: BusClient<M>;
  /** Learned next hop towards each cluster (the neighbour its traffic first came from) and the neighbours' lists. */
  private readonly lists: RouteLists;
  private stopped = false;
  /** Ids of this cluster's messages forwarded as they were published: their echo from the local broker is not forwarded again. */
  private readonly sentEarly = new SeenIds({ capacity: 10_000, ttlMs: 60_000 });
  /** Relayed messages, for tests and the benchmark. */
  forwarded = 0;

  constructor(options: RelayOptions<M>, codec: MessageCodec<M>) {
    this.options = options;
    this.codec = codec;
    this.lists = new RouteLists({
      self: options.cluster, ttlMs: options.routesTtlMs ?? ROUTES_TTL_MS, tree: options.tree !== false, links: this.links,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
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
    await this.lists.start(local);
    // Receivers check signatures; the relay forwards the bytes as they came.
    await local.subscribe(RELAY_FILTERS, (message, info, payload) => { if (!this.echoOfEarly(message, info)) this.forward(message, info, payload); }, { verify: false, forwarding: true });
    // The cluster's own messages leave at once: the round trip through its own broker is one hop of
    // latency on every path out (measured: 0.4-0.6 ms of a 1.5 ms hop to a neighbour under load).
    for (const client of new Set<Pick<BusClient<M>, 'onPublish'>>([...(shared ? [local] : []), ...(o.publisher === undefined ? [] : [o.publisher])])) {
      client.onPublish((message, info, payload) => { this.forwardOwn(message, info, payload); });
    }
  }

  private forwardOwn(message: M, info: TopicInfo, payload: Buffer): void {
    if (this.stopped || info.scope === 'local' || info.relayed || message.sender !== this.options.cluster) return;
    this.sentEarly.add(message.id, Date.now());
    this.forward(message, info, payload);
  }

  /** The local broker's copy of a message forwarded as it was published (forwardOwn). */
  private echoOfEarly(message: M, info: TopicInfo): boolean {
    return !info.relayed && info.origin === this.options.cluster && this.sentEarly.delete(message.id);
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
      this.lists.removed(cluster);
      await link.client.stop();
    }
    for (const neighbour of neighbours) {
      if (this.links.has(neighbour.cluster)) continue;
      let client: BusClient<M>;
      try {
        client = this.linkTo(neighbour);
      } catch (err) {
        // A refused URL (plain text off this machine) is that neighbour's problem; the others go on.
        this.options.logger?.error({ neighbour: neighbour.cluster, err: errorMessage(err) }, 'neighbour link refused');
        continue;
      }
      this.links.set(neighbour.cluster, { neighbour, client });
      // A neighbour that is down now is retried in the background; the federation goes on without it.
      client.start().catch((err: unknown) => { this.options.logger?.warn({ neighbour: neighbour.cluster, err: errorMessage(err) }, 'cannot reach a neighbour broker'); });
    }
  }

  private linkTo(neighbour: Neighbour): BusClient<M> {
    return new BusClient<M>({
        url: neighbour.url, cluster: this.options.cluster, link: `relay-${neighbour.cluster}`,
        ...(neighbour.username === undefined ? {} : { username: neighbour.username }),
        ...(neighbour.password === undefined ? {} : { password: neighbour.password }),
        ...(neighbour.tls === undefined ? {} : { tls: neighbour.tls }),
        ...(neighbour.insecure === true ? { allowInsecure: true } : {}),
        ...(this.options.qos === undefined ? {} : { qos: this.options.qos }),
        onLink: (up) => { this.lists.onLink(neighbour.cluster, up); },
        ...this.common(),
      }, this.codec);
  }

  private forward(message: M, info: TopicInfo, payload: Buffer): void {
    const maxHops = Math.min(this.options.maxHops ?? 8, MAX_HOPS);
    if (this.stopped || message.hops >= maxHops || info.scope === 'local') return;
    this.lists.learn(info);
    if (info.scope === 'to' && info.recipient === this.options.cluster) return;
    if (info.scope === 'multi') {
      this.forwardMulti(message, info, payload);
      return;
    }
    const now = Date.now();
    let next: Buffer | undefined;
    let topic: string | undefined;
    for (const [cluster, link] of this.targets(info)) {
      if (!this.sends(cluster, link, { message, info, now })) continue;
      topic ??= relayTopicOf(this.options.cluster, info);
      next ??= this.raised(message, payload);
      this.push(cluster, link, { topic, payload: next, kind: message.kind });
    }
  }

  /**
   * A multi-recipient copy: one copy per link, each naming the recipients it carries on that link
   * (routes.ts splitByNextHop): the message crosses each relay edge once, and splits where the
   * routes towards its recipients part.
   */
  private forwardMulti(message: M, info: TopicInfo, payload: Buffer): void {
    const now = Date.now();
    const self = this.options.cluster;
    const live = (cluster: string): boolean => this.links.get(cluster)?.client.connected === true;
    const usable = (cluster: string): boolean => this.sends(cluster, this.links.get(cluster) ?? { client: { connected: false } }, { message, info, now });
    const recipients = (info.recipients ?? []).filter((r) => r !== self);
    const split = splitByNextHop(recipients, (r) => {
      const via = this.lists.routes.parent(r);
      return via !== undefined && live(via) ? via : undefined;
    }, [...this.links.keys()].filter(usable));
    let next: Buffer | undefined;
    // split names only usable links
    for (const [cluster, carried] of split) {
      const link = this.links.get(cluster);
      if (link === undefined) continue;
      next ??= this.raised(message, payload);
      this.push(cluster, link, { topic: relayTopicOf(self, info, carried), payload: next, kind: message.kind });
    }
  }

  /** The bytes as received with `hops` raised (the sender's encoding and signature kept). */
  private raised(message: M, payload: Buffer): Buffer {
    return withHops(payload, message.hops + 1) ?? this.codec.encode({ ...message, hops: message.hops + 1 });
  }

  private push(cluster: string, link: { client: BusClient<M> }, what: { topic: string; payload: Buffer; kind: string }): void {
    this.forwarded += 1;
    link.client.publishPayload(what.topic, what.payload, what.kind).catch((err: unknown) => {
      this.options.logger?.warn({ neighbour: cluster, err: errorMessage(err) }, 'relay publish failed');
    });
  }

  /** Never back where it came from or to whom wrote it, not over a link that is down, and a broadcast only along the tree. */
  private sends(cluster: string, link: { client: Pick<BusClient<M>, 'connected'> }, at: { message: M; info: TopicInfo; now: number }): boolean {
    const { message, info, now } = at;
    if (cluster === info.publisher || cluster === message.sender || !link.client.connected) return false;
    return info.scope !== 'fed' || this.options.tree === false || this.lists.routes.forwards(info.origin, cluster, now);
  }

  /** A directed message goes only towards its recipient when a live route is known; everything else to every link. */
  private targets(info: TopicInfo): Iterable<[string, { neighbour: Neighbour; client: BusClient<M> }]> {
    const via = info.scope === 'to' && info.recipient !== undefined ? this.lists.routes.parent(info.recipient) : undefined;
    const link = via === undefined ? undefined : this.links.get(via);
    if (via !== undefined && link?.client.connected === true) return [[via, link]];
    return this.links;
  }

  /** The neighbour this relay reaches `cluster` through (its traffic's way in), if known. */
  routeTo(cluster: string): string | undefined {
    return this.lists.routes.parent(cluster);
  }

  /** How many neighbour links are connected now. */
  linksUp(): number {
    return [...this.links.values()].filter((l) => l.client.connected).length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.lists.stop();
    await this.local?.stop();
    this.local = undefined;
    for (const link of this.links.values()) await link.client.stop();
    this.links.clear();
  }
}
