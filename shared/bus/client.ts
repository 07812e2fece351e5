// The MQTT bus client every component can use (issue 7, "The bus"): connects with credentials and
// optional TLS to the embedded broker or any MQTT 3.1.1/5 broker by URL, reconnects with
// exponential backoff forever (until its AbortSignal), publishes enveloped JSON messages and
// hands subscribers only messages that are valid for their kind, consistent with their topic,
// signed by their sender when a keyring asks for it (signing.ts) and not seen before. Everything
// else is dropped and counted.
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import mqtt, { MqttClient, type IClientOptions } from 'mqtt';
import { Registry } from '../prometheus.ts';
import { EdgeshifuError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { frameOf, keyOf, peekKey, type DropReason, type MessageCodec } from './codec.ts';
import { SeenIds } from './dedup.ts';
import type { Envelope } from './envelope.ts';
import { covers, filterOf, matchLevels, type Filter } from './filters.ts';
import { busMetrics, type BusMetrics } from './metrics.ts';
import type { EmbeddedBroker } from './broker.ts';
import { dedupTtl, outsideWindow, RateLimiter, type RateLimits, type ReplayWindow } from './guard.ts';
import { insecureRefusal } from './transport.ts';

import type { Keyring } from './signing.ts';
import { parseTopic, type TopicInfo } from './topics.ts';

export interface BusTls {
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly rejectUnauthorized?: boolean;
}

export interface BusOptions {
  /** mqtt://host:port or mqtts://host:port */
  readonly url: string;
  /** This side's cluster id: the sender of what it publishes. */
  readonly cluster: string;
  readonly username?: string;
  readonly password?: string;
  readonly tls?: BusTls;
  readonly protocolVersion?: 4 | 5;
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
  /**
   * The embedded broker of this process to connect to in memory instead of by `url` (which then
   * only names it in logs): a cluster's own agent and relay save a loopback socket on every
   * message (EmbeddedBroker.connect).
   */
  readonly broker?: Pick<EmbeddedBroker, 'connect'>;
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
/** `payload`: the bytes as received (a relay forwards them without encoding again). */
export type Handler<M> = (message: M, topic: TopicInfo, payload: Buffer) => void;

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

interface Route<M> { readonly filters: Filter[]; readonly handler: Handler<M>; readonly verify: boolean; readonly forwarding: boolean }

/** Bytes on a topic outside the message tree (the relays' own control traffic), not decoded. */
export type RawHandler = (topic: string, payload: Buffer) => void;

/** Sees each new message this client publishes, as it goes out (a relay forwards it without waiting for the broker's echo). */
export type PublishListener<M> = (message: M, topic: TopicInfo, payload: Buffer) => void;

/** The recipients a message names (signed), for multi-recipient topics. */
function recipientsOf(message: Envelope): readonly string[] {
  const recipients = (message as { recipients?: unknown }).recipients;
  return Array.isArray(recipients) ? recipients.filter((r): r is string => typeof r === 'string') : [];
}

/** What de-duplication knows a copy by: a multi-recipient message's copies differ in the recipients their topic names. */
function copyKey(key: string | undefined, info: TopicInfo): string | undefined {
  return key === undefined || info.scope !== 'multi' ? key : `${key}@${(info.recipients ?? []).join('.')}`;
}

/** Topics parsed recently: a federation uses few of them, over and over. */
const TOPIC_CACHE_SIZE = 8192;

export class BusClient<M extends Envelope> {
  private readonly options: BusOptions;
  private readonly codec: MessageCodec<M>;
  private readonly seen: SeenIds;
  private readonly limiter?: RateLimiter;
  /** Multi-recipient messages handed to this cluster's own handlers (their copies differ by topic, so `seen` tells them apart). */
  private readonly delivered = new SeenIds({ capacity: 10_000 });
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
    this.seen = new SeenIds({ ttlMs: dedupTtl(options.replayWindow, 10 * 60_000) });
    if (options.limits !== undefined) this.limiter = new RateLimiter(options.limits);
    insecureRefusal(options);
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  /** Connects; resolves on the first CONNACK, rejects on refused credentials. Reconnects by itself afterwards. */
  async start(): Promise<void> {
    if (this.options.signal?.aborted === true) throw new EdgeshifuError('unavailable', 'the bus client was stopped before it started');
    const client = this.connect();
    this.client = client;
    this.options.signal?.addEventListener('abort', () => { void this.stop(); }, { once: true });
    client.on('message', (topic, payload) => { this.onMessage(topic, payload); });
    client.on('connect', () => { this.onConnect(); });
    client.on('close', () => { this.onClose(); });
    client.on('error', (err) => {
      this.lastError = err.message;
      this.options.logger?.warn({ link: this.link, err: err.message }, 'bus error');
    });
    await new Promise<void>((resolve, reject) => {
      const refused = (err: Error & { code?: number }): void => {
        if (err.code === 4 || err.code === 5 || err.code === 134 || err.code === 135) reject(new EdgeshifuError('forbidden', `broker ${this.options.url} refused ${this.options.username ?? '(no user)'}: ${err.message}`));
      };
      client.once('connect', () => { client.off('error', refused); resolve(); });
      client.on('error', refused);
    });
  }

  /**
   * TCP and TLS streams with Nagle's algorithm off: a DRONE round is a handful of small messages,
   * and Nagle plus delayed ACKs would hold each for tens of milliseconds. Other schemes (ws, wss)
   * go through mqtt.js as they are.
   */
  private connect(): MqttClient {
    const broker = this.options.broker;
    if (broker !== undefined) return new MqttClient(() => broker.connect(), this.clientOptions());
    const url = new URL(this.options.url);
    const port = Number(url.port === '' ? (url.protocol === 'mqtts:' ? 8883 : 1883) : url.port);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const tls = this.options.tls;
    if (url.protocol === 'mqtt:' || url.protocol === 'tcp:') {
      return new MqttClient(() => createConnection({ host, port, noDelay: true }), this.clientOptions());
    }
    if (url.protocol === 'mqtts:' || url.protocol === 'ssl:') {
      return new MqttClient(() => {
        const socket = tlsConnect({
          host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host,
          ca: tls?.ca, cert: tls?.cert, key: tls?.key, rejectUnauthorized: tls?.rejectUnauthorized ?? true,
        });
        socket.setNoDelay(true);
        return socket;
      }, this.clientOptions());
    }
    return mqtt.connect(this.options.url, this.clientOptions());
  }

  private clientOptions(): IClientOptions {
    const o = this.options;
    return {
      clientId: `edgeshifu-${o.cluster}-${this.link.replace(/[^a-z0-9-]/gi, '-')}-${randomUUID().slice(0, 8)}`,
      protocolVersion: o.protocolVersion ?? 4,
      reconnectPeriod: this.delay,
      connectTimeout: 10_000,
      clean: true,
      resubscribe: true,
      ...(o.username === undefined ? {} : { username: o.username }),
      ...(o.password === undefined ? {} : { password: o.password }),
      ...(o.tls === undefined ? {} : { ca: o.tls.ca, cert: o.tls.cert, key: o.tls.key, rejectUnauthorized: o.tls.rejectUnauthorized ?? true }),
    };
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
    this.count('published', kind);
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

  /** Takes a token from the bucket of the login that published this (never this cluster's own); true, and counted, when it is empty. */
  private overRate(info: TopicInfo, now: number): boolean {
    if (this.limiter === undefined || info.publisher === this.options.cluster || this.limiter.take(info.publisher, info.origin, info.kind, now)) return false;
    this.metrics.limited.inc({ neighbour: info.publisher, kind: info.kind });
    return true;
  }

  /** Why the sender's timestamp is outside the replay window, if it is. */
  private stale(message: M, now: number): string | undefined {
    const window = this.options.replayWindow;
    return window === undefined ? undefined : outsideWindow(message.timestamp, now, window);
  }

  private drop(reason: DropReason, topic: string, detail: string): void {
    this.metrics.dropped.inc({ reason });
    // A flood is counted, not logged message by message (the log would be the next flood).
    if (reason !== 'duplicate' && reason !== 'rate-limited') this.options.logger?.warn({ link: this.link, topic, reason, detail }, 'dropped a message');
  }

  private topicInfo(topic: string): TopicInfo | undefined {
    if (this.topics.has(topic)) return this.topics.get(topic);
    if (this.topics.size >= TOPIC_CACHE_SIZE) this.topics.clear();
    const info = parseTopic(topic);
    this.topics.set(topic, info);
    return info;
  }

  private rawHandled(topic: string, payload: Buffer): boolean {
    if (this.raw.length === 0) return false;
    const levels = topic.split('/');
    const raw = this.raw.find((r) => matchLevels(r.filter, levels));
    raw?.handler(topic, payload);
    return raw !== undefined;
  }

  private onMessage(topic: string, payload: Buffer): void {
    const info = this.topicInfo(topic);
    if (info === undefined) {
      if (!this.rawHandled(topic, payload)) this.drop('invalid', topic, 'topic is not in the edgeshifu/v1 tree');
      return;
    }
    if (this.options.ignoreOwn === true && info.scope !== 'local' && info.origin === this.options.cluster) return;
    const now = this.clock();
    const accepted = this.accept(info, payload, now);
    if (!accepted.ok) {
      this.drop(accepted.reason, topic, accepted.detail);
      return;
    }
    // The key holds the signature too, so a forged copy that arrives first cannot shadow the genuine message.
    this.seen.add(accepted.key, now);
    this.dispatch(accepted.message, info, topic, payload);
  }

  /** The message if it is new, valid and consistent with its topic; otherwise why not. */
  private accept(info: TopicInfo, payload: Buffer, now: number): { ok: true; message: M; key: string } | { ok: false; reason: DropReason; detail: string } {
    // A copy of a message already accepted (relays deliver a broadcast once per path) is not even parsed.
    const peeked = copyKey(peekKey(payload), info);
    if (peeked !== undefined && this.seen.has(peeked, now)) return { ok: false, reason: 'duplicate', detail: peeked };
    if (this.overRate(info, now)) return { ok: false, reason: 'rate-limited', detail: `${info.publisher} (for ${info.origin}) over its ${info.kind} rate` };
    const parsed = this.codec.parse(payload);
    if (!parsed.ok) return parsed;
    const key = peeked ?? copyKey(keyOf(parsed.value), info);
    if (key !== undefined && peeked === undefined && this.seen.has(key, now)) return { ok: false, reason: 'duplicate', detail: key };
    const decoded = this.codec.check(parsed.value);
    if (!decoded.ok) return decoded;
    const problem = this.mismatch(decoded.message, info);
    if (problem !== undefined) return { ok: false, ...problem };
    const stale = this.stale(decoded.message, now);
    if (stale !== undefined) return { ok: false, reason: 'stale', detail: stale };
    return { ok: true, message: decoded.message, key: key ?? decoded.message.id };
  }

  /** Whether the message agrees with its topic: sender, kind and recipient. */
  private mismatch(message: M, info: TopicInfo): { reason: DropReason; detail: string } | undefined {
    if (message.sender !== info.origin) return { reason: 'wrong-sender', detail: `sender ${message.sender} does not match the topic's origin ${info.origin}` };
    if (message.kind !== info.kind) return { reason: 'invalid', detail: `kind ${message.kind} does not match the topic's ${info.kind}` };
    const to = (message as { to?: unknown }).to;
    if (info.scope === 'to' && to !== info.recipient) return { reason: 'wrong-recipient', detail: `message for ${String(to)} on a topic for ${info.recipient ?? ''}` };
    if (info.scope === 'multi') {
      // The topic (rewritten by each relay) may name only recipients the sender named (signed).
      const named = recipientsOf(message);
      const stray = (info.recipients ?? []).filter((r) => !named.includes(r));
      if (to !== undefined || named.length === 0 || stray.length > 0) return { reason: 'wrong-recipient', detail: `message for ${named.join(', ') || String(to)} on a topic for ${(info.recipients ?? []).join(', ')}` };
    }
    return undefined;
  }

  /** The signature check: a wrong signature is always refused; a missing or uncheckable one when the keyring requires signatures. */
  private unsigned(message: M, info: TopicInfo, payload: Buffer): string | undefined {
    const keyring = this.options.keyring;
    // Local topics are written only by this cluster's own logins and never relayed.
    if (keyring === undefined || info.scope === 'local') return undefined;
    const frame = message.sig === undefined ? undefined : frameOf(payload);
    const verdict = keyring.verify(message.sender, frame?.signed, frame?.sig);
    if (keyring.accepts(verdict)) return undefined;
    return `${verdict} signature from ${message.sender}${info.relayed ? ` relayed by ${info.publisher}` : ''}`;
  }

  private count(counter: 'published' | 'received', kind: string): void {
    this.metrics[counter].inc({ kind });
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

  /** A multi-recipient message goes to relays as every copy comes, and to this cluster's own handlers once, when it names this cluster. */
  private routesFor(message: M, info: TopicInfo, topic: string): Array<Route<M>> {
    const routes = this.routesOf(topic);
    if (info.scope !== 'multi') return routes;
    const own = recipientsOf(message).includes(this.options.cluster) && !this.delivered.check(message.sig === undefined ? message.id : `${message.id}~${message.sig}`, this.clock());
    return own ? routes : routes.filter((r) => r.forwarding);
  }

  private dispatch(message: M, info: TopicInfo, topic: string, payload: Buffer): void {
    const routes = this.routesFor(message, info, topic);
    if (routes.length === 0) return;
    // This cluster's own messages on its own broker are proven by the broker's ACL (only its logins publish under its id).
    if (routes.some((r) => r.verify) && !(message.sender === this.options.cluster && !info.relayed)) {
      const problem = this.unsigned(message, info, payload);
      if (problem !== undefined) {
        this.drop('bad-signature', topic, problem);
        return;
      }
    }
    this.count('received', message.kind);
    for (const { handler } of routes) {
      try {
        handler(message, info, payload);
      } catch (err) {
        this.options.logger?.error({ link: this.link, topic, err: errorMessage(err) }, 'a bus handler failed');
      }
    }
  }
}

