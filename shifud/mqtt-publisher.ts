// Publishes each node sample on the MQTT bus, retained, for consumers that want it faster than
// the API: topic <prefix>/<node>/resources, and <prefix>/<node>/online ("true", or
// "false" as the will when shifud vanishes). Samples are dropped, never queued, while the
// broker is away; the mqtt client reconnects by itself.
import type { MqttClient } from 'mqtt';
import type { Logger } from '../shared/log.ts';
import type { NodeSample } from './sample.ts';

export interface MqttPublisherOptions {
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly topicPrefix: string;
  readonly nodeName: string;
  readonly logger: Logger;
  readonly reconnectMs?: number;
}

export function resourcesTopic(prefix: string, nodeName: string): string {
  return `${prefix}/${nodeName}/resources`;
}

export function onlineTopic(prefix: string, nodeName: string): string {
  return `${prefix}/${nodeName}/online`;
}

/** The broker URL as it may be logged: credentials in it are masked. */
export function loggableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '') {
      parsed.username = '[redacted]';
      parsed.password = '';
    }
    return parsed.toString();
  } catch {
    return '[unparsable broker URL]';
  }
}

export function candidatesTopic(prefix: string, nodeName: string): string {
  return `${prefix}/${nodeName}/candidates`;
}

export class MqttPublisher {
  private readonly options: MqttPublisherOptions;
  private client: MqttClient | undefined;
  readonly stats = { published: 0, dropped: 0, connects: 0 };

  constructor(options: MqttPublisherOptions) {
    this.options = options;
  }

  /** Connects in the background; never throws for an absent broker. */
  async start(): Promise<void> {
    const { url, username, password, topicPrefix, nodeName, logger } = this.options;
    // loaded only when a broker is configured: it is not free (footprint)
    const { connect } = await import('mqtt');
    const online = onlineTopic(topicPrefix, nodeName);
    const broker = loggableUrl(url);
    const client = connect(url, {
      clientId: `shifud-${nodeName}`.slice(0, 64),
      ...(username === undefined ? {} : { username }),
      ...(password === undefined ? {} : { password }),
      reconnectPeriod: this.options.reconnectMs ?? 5000,
      connectTimeout: 10_000,
      queueQoSZero: false,
      will: { topic: online, payload: Buffer.from('false'), qos: 1, retain: true },
    });
    client.on('connect', () => {
      this.stats.connects += 1;
      logger.info({ broker }, 'connected to MQTT broker');
      client.publish(online, 'true', { qos: 1, retain: true });
    });
    let lastError = '';
    client.on('error', (err) => {
      // one line per distinct error, not one per reconnect attempt
      if (err.message !== lastError) logger.warn({ broker, err: err.message }, 'MQTT broker error');
      lastError = err.message;
    });
    this.client = client;
  }

  publish(sample: NodeSample): boolean {
    const client = this.client;
    if (client?.connected !== true) {
      this.stats.dropped += 1;
      return false;
    }
    client.publish(resourcesTopic(this.options.topicPrefix, this.options.nodeName), JSON.stringify(sample), { qos: 0, retain: true });
    this.stats.published += 1;
    return true;
  }

  /** Discovery candidates (host:port list), retained; dropped when the broker is away. */
  publishCandidates(candidates: readonly string[]): boolean {
    const client = this.client;
    if (client?.connected !== true) return false;
    client.publish(candidatesTopic(this.options.topicPrefix, this.options.nodeName), JSON.stringify(candidates), { qos: 0, retain: true });
    return true;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    // a clean goodbye replaces the will; QoS 0 so a dying broker cannot hold up the shutdown
    if (client.connected) client.publish(onlineTopic(this.options.topicPrefix, this.options.nodeName), 'false', { qos: 0, retain: true });
    await client.endAsync(!client.connected);
  }
}
