// The MQTT bus client every component can use (issue 7, "The bus"): connects with credentials and
// optional TLS to the embedded broker or any MQTT 3.1.1/5 broker by URL, reconnects with
// exponential backoff forever (until its AbortSignal), publishes enveloped JSON messages and
// hands subscribers only messages that are valid for their kind, consistent with their topic
// and not seen before. Everything else is dropped and counted.
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import mqtt, { MqttClient, type IClientOptions } from 'mqtt';
import { Registry } from 'prom-client';
import { EdgeshifuError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { DropReason, MessageCodec } from './codec.ts';
import { SeenIds } from './dedup.ts';
import type { Envelope } from './envelope.ts';
import { busMetrics, type BusMetrics } from './metrics.ts';
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
}

export type Body<M> = M extends unknown ? Omit<M, keyof Envelope | 'kind'> & { kind: M extends { kind: infer K } ? K : never } : never;
export type Handler<M> = (message: M, topic: TopicInfo) => void;

export class BusClient<M extends Envelope> {
  private readonly options: BusOptions;
  private readonly codec: MessageCodec<M>;
  private readonly seen = new SeenIds();
  private readonly metrics: BusMetrics;
  private readonly link: string;
  private readonly clock: () => number;
  private readonly handlers: Array<{ filters: string[]; handler: Handler<M> }> = [];
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
  }

  /** Exponential backoff: mqtt.js reads reconnectPeriod each time it schedules a reconnect. */
  private onClose(): void {
    this.metrics.connected.set({ link: this.link }, 0);
    if (this.client === undefined || this.options.signal?.aborted === true) return;
    this.metrics.reconnects.inc({ link: this.link });
    this.client.options.reconnectPeriod = this.delay;
    this.delay = Math.min(this.delay * 2, this.options.backoff?.maxMs ?? 10_000);
  }

  /** Subscribes `filters` (QoS 1); throws 'forbidden' when the broker refuses one. */
  async subscribe(filters: readonly string[], handler: Handler<M>): Promise<void> {
    const client = this.requireClient();
    this.handlers.push({ filters: [...filters], handler });
    let grants;
    try {
      grants = await client.subscribeAsync([...filters], { qos: 1 });
    } catch (err) {
      throw new EdgeshifuError('forbidden', `broker refused the subscription to ${filters.join(', ')} for ${this.options.username ?? this.options.cluster}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const refused = grants.filter((g) => g.qos === 128 || g.qos > 2);
    if (refused.length > 0) throw new EdgeshifuError('forbidden', `broker refused the subscription to ${refused.map((g) => g.topic).join(', ')} for ${this.options.username ?? this.options.cluster}`);
  }

  /** Publishes a new message from this cluster: id, sender, timestamp and hops are filled in here. */
  async publish(topic: string, body: Body<M>): Promise<M> {
    const message = { ...body, v: 1, id: `${this.options.cluster}.${randomUUID()}`, sender: this.options.cluster, timestamp: this.clock(), hops: 0 } as unknown as M;
    await this.publishMessage(topic, message);
    return message;
  }

  /** Publishes a message as it is (relays). */
  async publishMessage(topic: string, message: M): Promise<void> {
    const client = this.requireClient();
    await client.publishAsync(topic, this.codec.encode(message), { qos: 1 });
    this.metrics.published.inc({ kind: message.kind });
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

  private drop(reason: DropReason, topic: string, detail: string): void {
    this.metrics.dropped.inc({ reason });
    if (reason !== 'duplicate') this.options.logger?.warn({ link: this.link, topic, reason, detail }, 'dropped a message');
  }

  private onMessage(topic: string, payload: Buffer): void {
    const info = parseTopic(topic);
    if (info === undefined) {
      this.drop('invalid', topic, 'topic is not in the edgeshifu/v1 tree');
      return;
    }
    if (this.options.ignoreOwn === true && info.scope !== 'local' && info.origin === this.options.cluster) return;
    const decoded = this.codec.decode(payload);
    if (!decoded.ok) {
      this.drop(decoded.reason, topic, decoded.detail);
      return;
    }
    const message = decoded.message;
    if (message.sender !== info.origin) {
      this.drop('wrong-sender', topic, `sender ${message.sender} does not match the topic's origin ${info.origin}`);
      return;
    }
    if (message.kind !== info.kind) {
      this.drop('invalid', topic, `kind ${message.kind} does not match the topic's ${info.kind}`);
      return;
    }
    const to = (message as { to?: unknown }).to;
    if (info.scope === 'to' && to !== info.recipient) {
      this.drop('wrong-recipient', topic, `message for ${String(to)} on a topic for ${info.recipient ?? ''}`);
      return;
    }
    if (this.seen.check(message.id, this.clock())) {
      this.drop('duplicate', topic, message.id);
      return;
    }
    this.metrics.received.inc({ kind: message.kind });
    this.dispatch(message, info, topic);
  }

  private dispatch(message: M, info: TopicInfo, topic: string): void {
    for (const { filters, handler } of this.handlers) {
      if (!filters.some((f) => matches(f, topic))) continue;
      try {
        handler(message, info);
      } catch (err) {
        this.options.logger?.error({ link: this.link, topic, err: err instanceof Error ? err.message : String(err) }, 'a bus handler failed');
      }
    }
  }
}

/** MQTT topic filter matching (+ one level, # the rest). */
export function matches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i += 1) {
    if (f[i] === '#') return true;
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}
