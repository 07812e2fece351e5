// The MQTT bus client every component can use: connects with credentials and optional TLS to
// the embedded broker or any MQTT 3.1.1/5 broker by URL (connection.ts), reconnects with
// exponential backoff forever (until its AbortSignal), publishes enveloped JSON messages and
// hands subscribers only messages that are valid for their kind, consistent with their topic,
// signed by their sender when a keyring asks for it (signing.ts) and not seen before (the
// receive steps, receive.ts). Everything else is dropped and counted.
import { randomUUID } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { Registry } from '../prometheus.ts';
import { EdgeshifuError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { MessageCodec } from './codec.ts';
import { SeenIds } from './dedup.ts';
import type { Envelope } from './envelope.ts';
import { covers, filterOf, matchLevels, type Filter } from './filters.ts';
import { busMetrics, type BusMetrics } from './metrics.ts';
import { openConnection, refusedLogin, type ConnectionOptions } from './connection.ts';
import { dedupTtl, RateLimiter, type RateLimits, type ReplayWindow } from './guard.ts';
import { receive, type Handler, type RawHandler, type Receiver, type Route } from './receive.ts';
import { insecureRefusal } from './transport.ts';
import type { Keyring } from './signing.ts';
import { parseTopic, type TopicInfo } from './topics.ts';

export type { BusTls } from './connection.ts';
export type { Handler, RawHandler } from './receive.ts';

/** Where and how to connect (ConnectionOptions, connection.ts), and how the client behaves once connected. */
export interface BusOptions extends ConnectionOptions {
  /** Name of this link in logs and metrics (e.g. "local", "relay:edge-2"). */
  readonly link?: string;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly logger?: Logger;
  readonly metrics?: BusMetrics;
  readonly signal?: AbortSignal;
  readonly clock?: () => number;
  /** Skip, before decoding, federation messages this cluster wrote itself (its own echoes). Not for relays. */
  readonly ignoreOwn?: boolean;
  /**
   * MQTT QoS of publishes and subscriptions, default 0: it halves the packets on every hop (no
   * PUBACK; measured: about half the CPU per job, bench/drone.ts). With clean sessions QoS 1 adds
   * little, since the DRONE core resends what is lost (gossip, retries with the same request id);
   * publishes made while disconnected are queued and sent on reconnection either way.
   */
  readonly qos?: 0 | 1;
  /** Signs what this client publishes and checks what it receives (signing.ts). Relays forward as is. */
  readonly keyring?: Keyring;
  /** Called when the connection comes up (true) or goes down (false). */
  readonly onLink?: (connected: boolean) => void;
  /**
   * Token buckets per (publishing login, origin, kind), taken before a payload is parsed: a
   * neighbour's flood is dropped (counted as rate-limited) without costing a parse. This cluster's
   * own messages are not limited.
   */
  readonly limits?: RateLimits;
  /** Messages whose sender timestamp is outside this window are dropped (counted as stale); ids are remembered at least as long. */
  readonly replayWindow?: ReplayWindow;
  /** Plain mqtt:// to a host that is not a loopback address: refused unless set (the traffic and the password cross the network in clear). */
  readonly allowInsecure?: boolean;
}

export type Body<M> = M extends unknown ? Omit<M, keyof Envelope | 'kind'> & { kind: M extends { kind: infer K } ? K : never } : never;

export interface HandlerOptions {
  /**
   * Check signatures for this handler (default true; only with a keyring). A relay forwards
   * without checking (its receivers check), so sharing its connection with the agent costs a
   * verification only for what the agent reads.
   */
  readonly verify?: boolean;
  /**
   * Hand this handler every copy of a multi-recipient message (a relay forwards each copy towards
   * the recipients its topic names). Default false: a copy only when the message (as signed) names
   * this cluster among its `recipients`, and the message once however many copies arrive.
   */
  readonly forwarding?: boolean;
}

/** Sees each new message this client publishes, as it goes out (a relay forwards it without waiting for the broker's echo). */
export type PublishListener<M> = (message: M, topic: TopicInfo, payload: Buffer) => void;

/** Topics parsed recently: a federation uses few of them, over and over. */
const TOPIC_CACHE_SIZE = 8192;

export class BusClient<M extends Envelope> {
  private readonly options: BusOptions;
  private readonly codec: MessageCodec<M>;
  private readonly metrics: BusMetrics;
  private readonly link: string;
  private readonly clock: () => number;
  private readonly handlers: Array<Route<M>> = [];
  /** What this client asked the broker for (a later filter that one of these covers is not sent again). */
  private readonly subscriptions: Filter[] = [];
  private readonly topics = new Map<string, TopicInfo | undefined>();
  /** The handlers each topic goes to (cleared when a handler is added). */
  private readonly routesByTopic = new Map<string, Array<Route<M>>>();
  private readonly raw: Array<{ filter: Filter; handler: RawHandler }> = [];
  private readonly publishListeners: Array<PublishListener<M>> = [];
  /** What the receive steps (receive.ts) read and keep. */
  private readonly receiver: Receiver<M>;
  private readonly qos: 0 | 1;
  private client?: MqttClient;
  private delay: number;
  /** The last connection error (no credentials in it), for status and tests. */
  lastError?: string;

  constructor(options: BusOptions, codec: MessageCodec<M>) {
    this.options = options;
    this.codec = codec;
    this.metrics = options.metrics ?? busMetrics(new Registry());
    this.link = options.link ?? 'local';
    this.clock = options.clock ?? Date.now;
    this.delay = options.backoff?.initialMs ?? 100;
    this.qos = options.qos ?? 0;
    this.receiver = {
      cluster: options.cluster, link: this.link, codec, metrics: this.metrics, clock: this.clock,
      seen: new SeenIds({ ttlMs: dedupTtl(options.replayWindow, 10 * 60_000) }),
      delivered: new SeenIds({ capacity: 10_000 }),
      ...(options.limits === undefined ? {} : { limiter: new RateLimiter(options.limits) }),
      ...(options.replayWindow === undefined ? {} : { replayWindow: options.replayWindow }),
      ...(options.keyring === undefined ? {} : { keyring: options.keyring }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ignoreOwn: options.ignoreOwn === true,
      topicInfo: (topic) => this.topicInfo(topic),
      rawHandlers: () => this.raw,
      routesOf: (topic) => this.routesOf(topic),
    };
    insecureRefusal(options);
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  /** Connects; resolves on the first CONNACK, rejects on refused credentials. Reconnects by itself afterwards. */
  async start(): Promise<void> {
    if (this.options.signal?.aborted === true) throw new EdgeshifuError('unavailable', 'the bus client was stopped before it started');
    const client = openConnection(this.options, this.link, this.delay);
    this.client = client;
    this.options.signal?.addEventListener('abort', () => { void this.stop(); }, { once: true });
    client.on('message', (topic, payload) => { receive(this.receiver, topic, payload); });
    client.on('connect', () => { this.onConnect(); });
    client.on('close', () => { this.onClose(); });
    client.on('error', (err) => {
      this.lastError = err.message;
      this.options.logger?.warn({ link: this.link, err: err.message }, 'bus error');
    });
    await new Promise<void>((resolve, reject) => {
      const refused = (err: Error & { code?: number }): void => {
        if (refusedLogin(err)) reject(new EdgeshifuError('forbidden', `broker ${this.options.url} refused ${this.options.username ?? '(no user)'}: ${err.message}`));
      };
      client.once('connect', () => { client.off('error', refused); resolve(); });
      client.on('error', refused);
    });
  }

  private onConnect(): void {
    this.delay = this.options.backoff?.initialMs ?? 100;
    if (this.client !== undefined) this.client.options.reconnectPeriod = this.delay;
    this.metrics.connected.set({ link: this.link }, 1);
    this.options.logger?.info({ link: this.link, url: this.options.url }, 'bus connected');
    this.options.onLink?.(true);
  }

  /** Exponential backoff: mqtt.js reads reconnectPeriod each time it schedules a reconnect. */
  private onClose(): void {
    this.metrics.connected.set({ link: this.link }, 0);
    this.options.onLink?.(false);
    if (this.client === undefined || this.options.signal?.aborted === true) return;
    this.metrics.reconnects.inc({ link: this.link });
    this.client.options.reconnectPeriod = this.delay;
    this.delay = Math.min(this.delay * 2, this.options.backoff?.maxMs ?? 10_000);
  }

  /**
   * Hands `handler` the messages on `filters`, subscribing (at the client's QoS) to those that no
   * earlier subscription of this client covers; throws 'forbidden' when the broker refuses one.
   */
  async subscribe(filters: readonly string[], handler: Handler<M>, options: HandlerOptions = {}): Promise<void> {
    const client = this.requireClient();
    const split = filters.map(filterOf);
    this.handlers.push({ filters: split, handler, verify: options.verify ?? true, forwarding: options.forwarding ?? false });
    this.routesByTopic.clear();
    const fresh = filters.filter((_, i) => !this.subscriptions.some((s) => covers(s, split[i] ?? [])));
    if (fresh.length === 0) return;
    this.subscriptions.push(...fresh.map(filterOf));
    let grants;
    try {
      grants = await client.subscribeAsync(fresh, { qos: this.qos });
    } catch (err) {
      throw new EdgeshifuError('forbidden', `broker refused the subscription to ${fresh.join(', ')} for ${this.options.username ?? this.options.cluster}: ${errorMessage(err)}`, { cause: err });
    }
    const refused = grants.filter((g) => g.qos === 128 || g.qos > 2);
    if (refused.length > 0) throw new EdgeshifuError('forbidden', `broker refused the subscription to ${refused.map((g) => g.topic).join(', ')} for ${this.options.username ?? this.options.cluster}`);
  }

  /** Hands `handler` the bytes published on `filter` (a topic outside the message tree); throws 'forbidden' when refused. */
  async subscribeRaw(filter: string, handler: RawHandler): Promise<void> {
    const client = this.requireClient();
    this.raw.push({ filter: filterOf(filter), handler });
    const grants = await client.subscribeAsync(filter, { qos: this.qos });
    if (grants.some((g) => g.qos === 128 || g.qos > 2)) throw new EdgeshifuError('forbidden', `broker refused the subscription to ${filter} for ${this.options.username ?? this.options.cluster}`);
  }

  /** Publishes a new message from this cluster: id, sender, timestamp and hops are filled in here, and the signature when there is a key. */
  async publish(topic: string, body: Body<M>): Promise<M> {
    const message = { ...body, v: 1, id: `${this.options.cluster}.${randomUUID()}`, sender: this.options.cluster, timestamp: this.clock(), hops: 0 } as unknown as M;
    const keyring = this.options.keyring;
    const payload = this.codec.encode(message, keyring?.signs === true ? (bytes) => keyring.sign(bytes) : undefined);
    const sent = this.publishPayload(topic, payload, message.kind);
    const info = this.publishListeners.length === 0 ? undefined : this.topicInfo(topic);
    if (info !== undefined) for (const listener of this.publishListeners) this.tell(listener, { message, info, payload }, topic);
    await sent;
    return message;
  }

  /** `listener` sees every new message this client publishes (`publish`), right after it is handed to the broker. */
  onPublish(listener: PublishListener<M>): void {
    this.publishListeners.push(listener);
  }

  private tell(listener: PublishListener<M>, at: { message: M; info: TopicInfo; payload: Buffer }, topic: string): void {
    try {
      listener(at.message, at.info, at.payload);
    } catch (err) {
      this.options.logger?.error({ link: this.link, topic, err: errorMessage(err) }, 'a publish listener failed');
    }
  }

  /** Publishes a message as it is, unsigned unless it carries its signature (tests of forged messages). */
  async publishMessage(topic: string, message: M): Promise<void> {
    await this.publishPayload(topic, this.codec.encode(message), message.kind);
  }

  /** Publishes bytes as they are (a relay forwards what it received, `hops` raised). */
  async publishPayload(topic: string, payload: Buffer, kind: string): Promise<void> {
    const client = this.requireClient();
    await client.publishAsync(topic, payload, { qos: this.qos });
    this.metrics.published.inc({ kind });
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.metrics.connected.set({ link: this.link }, 0);
    if (client !== undefined) await client.endAsync(true);
  }

  private requireClient(): MqttClient {
    if (this.client === undefined) throw new EdgeshifuError('unavailable', `bus client ${this.link} is not started`);
    return this.client;
  }

  private topicInfo(topic: string): TopicInfo | undefined {
    if (this.topics.has(topic)) return this.topics.get(topic);
    if (this.topics.size >= TOPIC_CACHE_SIZE) this.topics.clear();
    const info = parseTopic(topic);
    this.topics.set(topic, info);
    return info;
  }

  private routesOf(topic: string): Array<Route<M>> {
    let routes = this.routesByTopic.get(topic);
    if (routes === undefined) {
      const levels = topic.split('/');
      routes = this.handlers.filter((r) => r.filters.some((f) => matchLevels(f, levels)));
      if (this.routesByTopic.size >= TOPIC_CACHE_SIZE) this.routesByTopic.clear();
      this.routesByTopic.set(topic, routes);
    }
    return routes;
  }
}

