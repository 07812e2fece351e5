// Sends telemetry results to their targets: HTTP POST (basic auth when the TelemetryService has
// credentials) or an MQTT publish (QoS 1) over one kept-open client per broker. Failures throw;
// the telemetry loop counts them.
import type { MqttClient } from 'mqtt';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import { http, https } from '../../shared/node-http.ts';
import { targetOfUrl, type PushTarget } from './service.ts';

const PUBLISH_TIMEOUT_MS = 5000;

export interface TelemetryPayload {
  readonly deviceName: string;
  readonly telemetry: string;
  readonly body: Buffer;
  readonly contentType?: string;
}

/** Looks up a TelemetryService by name (API or file); undefined when there is none. */
export type ServiceResolver = (name: string) => Promise<PushTarget | undefined>;

/** One POST on node:http(s), the answer read and dropped; resolves with the status. (fetch would load undici: ~10 MB.) */
function post(url: URL, headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<number> {
  const send = url.protocol === 'https:' ? https().request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers: { ...headers, 'content-length': body.length }, signal }, (res) => {
      res.resume();
      res.once('end', () => { resolve(res.statusCode ?? 0); });
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

export class TelemetryPusher {
  private readonly resolve: ServiceResolver;
  private readonly logger: Logger;
  private readonly brokers = new Map<string, Promise<MqttClient>>();
  /** Set by stop(): a push racing the stop must not open a client nobody will close. */
  private stopped = false;

  constructor(resolve: ServiceResolver, logger: Logger) {
    this.resolve = resolve;
    this.logger = logger;
  }

  async push(to: string, payload: TelemetryPayload, signal: AbortSignal): Promise<void> {
    const target = targetOfUrl(to) ?? await this.resolve(to);
    if (target === undefined) throw new EdgeshifuError('not-found', `telemetryCollectionService "${to}" is neither a URL nor a known TelemetryService`);
    if (target.kind === 'http') await this.pushHttp(target, payload, signal);
    else await this.pushMqtt(target, payload);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.brokers.values()].map(async (c) => { await (await c).endAsync(true); }));
    this.brokers.clear();
  }

  private async pushHttp(target: Extract<PushTarget, { kind: 'http' }>, payload: TelemetryPayload, signal: AbortSignal): Promise<void> {
    const headers: Record<string, string> = {
      'content-type': payload.contentType ?? 'application/octet-stream',
      'x-edgeshifu-device': payload.deviceName,
      'x-edgeshifu-telemetry': payload.telemetry,
    };
    if (target.username !== undefined) headers.authorization = `Basic ${Buffer.from(`${target.username}:${target.password ?? ''}`).toString('base64')}`;
    let status: number;
    try {
      status = await post(new URL(target.url), headers, payload.body, signal);
    } catch (err) {
      throw new EdgeshifuError('unavailable', `telemetry endpoint ${new URL(target.url).host} unreachable: ${(err as Error).message}`, { cause: err });
    }
    if (status < 200 || status >= 300) throw new EdgeshifuError('unavailable', `telemetry endpoint ${new URL(target.url).host} answered ${status}`);
  }

  private client(target: Extract<PushTarget, { kind: 'mqtt' }>): Promise<MqttClient> {
    if (this.stopped) return Promise.reject(new EdgeshifuError('unavailable', 'telemetry is stopping'));
    const key = `${target.url}|${target.username ?? ''}`;
    let client = this.brokers.get(key);
    if (client === undefined) {
      client = this.connect(target);
      this.brokers.set(key, client);
    }
    return client;
  }

  private async connect(target: Extract<PushTarget, { kind: 'mqtt' }>): Promise<MqttClient> {
    // Loaded on first use: most devices never push to MQTT.
    const { connect } = await import('mqtt');
    const client = connect(target.url, { username: target.username, password: target.password, reconnectPeriod: 2000, connectTimeout: 5000, queueQoSZero: false });
    client.on('error', (err) => { this.logger.debug({ broker: new URL(target.url).host, err: err.message }, 'telemetry broker error'); });
    return client;
  }

  private async pushMqtt(target: Extract<PushTarget, { kind: 'mqtt' }>, payload: TelemetryPayload): Promise<void> {
    const client = await this.client(target);
    if (!client.connected) throw new EdgeshifuError('unavailable', `telemetry broker ${new URL(target.url).host} not connected`);
    // a broker that vanishes after the PUBLISH never acknowledges it: the push gives up, the loop goes on
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => { reject(new EdgeshifuError('timeout', `telemetry broker ${new URL(target.url).host} did not acknowledge within ${PUBLISH_TIMEOUT_MS} ms`)); }, PUBLISH_TIMEOUT_MS);
    });
    try {
      await Promise.race([client.publishAsync(target.topic, payload.body, { qos: 1 }), giveUp]);
    } finally {
      clearTimeout(timer);
    }
  }
}
