// The MQTT connection under a bus client: TCP or TLS with Nagle's algorithm off, or an in-memory
// stream to this process's embedded broker; a client id unique per connection; clean sessions
// that resubscribe by themselves. The client sets reconnectPeriod again on every close
// (exponential backoff, client.ts).
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import mqtt, { MqttClient, type IClientOptions } from 'mqtt';
import type { EmbeddedBroker } from './broker.ts';

export interface BusTls {
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly rejectUnauthorized?: boolean;
}

/** Where and how a bus client connects (the first part of BusOptions, client.ts). */
export interface ConnectionOptions {
  /** mqtt://host:port or mqtts://host:port */
  readonly url: string;
  /** This side's cluster id: the sender of what it publishes. */
  readonly cluster: string;
  readonly username?: string;
  readonly password?: string;
  readonly tls?: BusTls;
  readonly protocolVersion?: 4 | 5;
  /**
   * The embedded broker of this process to connect to in memory instead of by `url` (which then
   * only names it in logs): a cluster's own agent and relay save a loopback socket on every
   * message (EmbeddedBroker.connect).
   */
  readonly broker?: Pick<EmbeddedBroker, 'connect'>;
}

/**
 * TCP and TLS streams with Nagle's algorithm off: a DRONE round is a handful of small messages,
 * and Nagle plus delayed ACKs would hold each for tens of milliseconds. Other schemes (ws, wss)
 * go through mqtt.js as they are.
 */
export function openConnection(o: ConnectionOptions, link: string, reconnectMs: number): MqttClient {
  const options = clientOptions(o, link, reconnectMs);
  const broker = o.broker;
  if (broker !== undefined) return new MqttClient(() => broker.connect(), options);
  const url = new URL(o.url);
  const port = Number(url.port === '' ? (url.protocol === 'mqtts:' ? 8883 : 1883) : url.port);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const tls = o.tls;
  if (url.protocol === 'mqtt:' || url.protocol === 'tcp:') {
    return new MqttClient(() => createConnection({ host, port, noDelay: true }), options);
  }
  if (url.protocol === 'mqtts:' || url.protocol === 'ssl:') {
    return new MqttClient(() => {
      const socket = tlsConnect({
        host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host,
        ca: tls?.ca, cert: tls?.cert, key: tls?.key, rejectUnauthorized: tls?.rejectUnauthorized ?? true,
      });
      socket.setNoDelay(true);
      return socket;
    }, options);
  }
  return mqtt.connect(o.url, options);
}

function clientOptions(o: ConnectionOptions, link: string, reconnectMs: number): IClientOptions {
  return {
    clientId: `edgeshifu-${o.cluster}-${link.replace(/[^a-z0-9-]/gi, '-')}-${randomUUID().slice(0, 8)}`,
    protocolVersion: o.protocolVersion ?? 4,
    reconnectPeriod: reconnectMs,
    connectTimeout: 10_000,
    clean: true,
    resubscribe: true,
    ...(o.username === undefined ? {} : { username: o.username }),
    ...(o.password === undefined ? {} : { password: o.password }),
    ...(o.tls === undefined ? {} : { ca: o.tls.ca, cert: o.tls.cert, key: o.tls.key, rejectUnauthorized: o.tls.rejectUnauthorized ?? true }),
  };
}

/** CONNACK codes that refuse the login: bad user name or password, not authorised (MQTT 3.1.1: 4, 5; MQTT 5: 134, 135). */
export function refusedLogin(err: Error & { code?: number }): boolean {
  return err.code === 4 || err.code === 5 || err.code === 134 || err.code === 135;
}
