// MQTT devices: every instruction's MQTTTopic is subscribed at QoS 1; GET returns
// the last message and when it came, POST/PUT publish the body, gated by controlMsgs. The client
// reconnects with backoff and re-subscribes; a broker that is down makes calls fail with 502 (a
// GET too: the cached message may be stale and nothing could tell), never the process (Shifu panics).
import { connect, type MqttClient } from 'mqtt';
import { Backoff } from '../../shared/backoff.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Driver, DriverContext, DriverResponse } from './driver.ts';
import { abortable } from './abortable.ts';
import { brokerOptions } from './mqtt-broker.ts';
import { ControlGate } from './mqtt-gate.ts';
import { isoTime } from '../../shared/time.ts';

const DEFAULT_CONTROL_TIMEOUT_MS = 60_000;

interface LastMessage {
  readonly payload: Buffer;
  readonly at: Date;
}

function topicsOf(context: DriverContext): Map<string, string> {
  const fallback = context.spec.protocolSettings?.MQTTSetting?.MQTTTopic;
  const topics = new Map<string, string>();
  for (const instruction of context.config.instructions.values()) {
    const topic = instruction.protocolProperties.MQTTTopic ?? fallback;
    if (topic !== undefined && topic !== '') topics.set(instruction.name, topic);
  }
  return topics;
}

function json(status: number, value: unknown): DriverResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}

class MqttDriver implements Driver {
  private readonly context: DriverContext;
  private readonly topics: Map<string, string>;
  private readonly last = new Map<string, LastMessage>();
  private readonly gate: ControlGate;
  private readonly backoff = new Backoff({ initialMs: 500, maxMs: 15_000 });
  private client: MqttClient | undefined;
  /** host:port of the broker, for messages. */
  private broker = '';
  /** When the topics were first subscribed: a GET before any message says how long it has listened. */
  private subscribedAt: Date | undefined;
  private stopped = false;

  constructor(context: DriverContext) {
    this.context = context;
    this.topics = topicsOf(context);
    this.gate = new ControlGate(context.config.controlMsgs, {
      timeoutMs: context.options.controlMsgsTimeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS,
      onExpire: (expired) => { context.logger.warn(expired, 'controlMsgs: no completion message in time; the device takes commands again'); },
    });
  }

  async start(signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => { void this.stop(); }, { once: true });
    const { url, options } = await brokerOptions(this.context);
    if (this.stopped) return;
    const client = connect(url, { ...options, reconnectPeriod: 500, connectTimeout: 5000, resubscribe: false, queueQoSZero: false, clean: true });
    const broker = new URL(url).host;
    this.broker = broker;
    client.on('connect', () => {
      this.backoff.reset();
      this.context.logger.info({ broker, topics: [...new Set(this.topics.values())] }, 'MQTT broker connected');
      const topics = [...new Set(this.topics.values())];
      if (topics.length > 0) {
        client.subscribe(topics, { qos: 1 }, (err) => {
          if (err) this.context.logger.warn({ err: err.message }, 'MQTT subscribe failed');
          else this.subscribedAt ??= new Date();
        });
      }
    });
    client.on('message', (topic, payload) => {
      this.last.set(topic, { payload, at: new Date() });
      this.gate.received(payload.toString('utf8'));
    });
    client.on('close', () => { client.options.reconnectPeriod = this.backoff.next(); });
    client.on('error', (err) => { this.context.logger.debug({ broker, err: err.message }, 'MQTT broker error'); });
    this.client = client;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.client?.endAsync(true);
  }

  async call(instruction: { readonly name: string }, request: Parameters<Driver['call']>[1]): Promise<DriverResponse> {
    const topic = this.topics.get(instruction.name);
    if (topic === undefined) {
      throw new EdgeshifuError('invalid', `instruction ${instruction.name} has no protocolPropertyList.MQTTTopic and the EdgeDevice has no MQTTSetting.MQTTTopic`);
    }
    if (request.method === 'GET' || request.method === 'HEAD') return this.read(topic);
    return this.publish(topic, request.body, request.signal);
  }

  probe(): Promise<void> {
    if (this.client?.connected === true) return Promise.resolve();
    return Promise.reject(new EdgeshifuError('unavailable', 'MQTT broker not connected'));
  }

  /**
   * The last message and when it came. Before the first one: 404 saying so (Shifu answers 200 with
   * an empty message and the zero time "0001-01-01 00:00:00 +0000 UTC", which reads like an empty
   * payload), or 502 while the broker was never reached.
   */
  private read(topic: string): DriverResponse {
    const message = this.last.get(topic);
    if (message !== undefined && this.client?.connected !== true) {
      throw new EdgeshifuError('unavailable', `MQTT broker ${this.broker} not connected; the last message on ${topic} came at ${isoTime(message.at.getTime())} and may be stale`);
    }
    if (message !== undefined) return json(200, { mqtt_message: message.payload.toString('utf8'), mqtt_receive_timestamp: isoTime(message.at.getTime()) });
    if (this.subscribedAt === undefined) {
      throw new EdgeshifuError('unavailable', `no message has arrived on topic ${topic} yet: the MQTT broker has not been reached, so the topic is not subscribed`);
    }
    throw new EdgeshifuError('not-found', `no message has arrived on topic ${topic} yet (subscribed since ${isoTime(this.subscribedAt.getTime())}); GET answers with the last message once the device publishes one`);
  }

  private async publish(topic: string, body: Buffer, signal: AbortSignal): Promise<DriverResponse> {
    const client = this.client;
    if (client?.connected !== true) throw new EdgeshifuError('unavailable', 'MQTT broker not connected: message not published');
    const claimed = this.gate.claim(body.toString('utf8'));
    try {
      await abortable(client.publishAsync(topic, body, { qos: 1 }), signal);
    } catch (err) {
      if (claimed) this.gate.release();
      throw err instanceof EdgeshifuError || signal.aborted ? err : new EdgeshifuError('unavailable', `MQTT publish to ${topic} failed: ${(err as Error).message}`);
    }
    return json(200, { mqtt_topic: topic, published_bytes: body.length });
  }
}

export function createMqttDriver(context: DriverContext): Driver {
  return new MqttDriver(context);
}
