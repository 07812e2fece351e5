// The embedded MQTT broker (aedes) of a cluster (controller/drone/README.md, "Security"): every connection must log
// in as a known cluster (username/password from a Secret), may publish only under its own id and
// subscribe only where acl.ts allows. Binds where it is told (127.0.0.1 and port 0 in tests).
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { duplexPair, type Duplex } from 'node:stream';
import { createServer as createTlsServer } from 'node:tls';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import { EdgeshifuError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { mayPublish, maySubscribe } from './acl.ts';
import { Pacer, type RateLimit } from './guard.ts';

export interface BrokerUser {
  readonly username: string;
  readonly password: string;
  /** The cluster this login speaks for. */
  readonly cluster: string;
}

export interface EmbeddedBrokerOptions {
  /** Cluster that owns the broker (its own components may read everything on it). */
  readonly owner: string;
  readonly host: string;
  readonly port: number;
  readonly users: readonly BrokerUser[];
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
  readonly logger?: Logger;
  /** Publishes per second each login other than the owner may make before the broker holds them (guard.ts Pacer). */
  readonly pace?: RateLimit;
}

function digest(value: string | Buffer): Buffer {
  return createHash('sha256').update(value).digest();
}

function authError(message: string): AuthenticateError {
  // 4 = bad user name or password (MQTT 3.1.1 §3.2.2.3)
  const error = new Error(message);
  Object.defineProperty(error, 'returnCode', { value: 4, enumerable: true });
  return error as AuthenticateError;
}

export class EmbeddedBroker {
  private readonly options: EmbeddedBrokerOptions;
  private users: Map<string, BrokerUser>;
  private readonly sessions = new WeakMap<Client, string>();
  private broker?: Aedes;
  private server?: Server;
  private readonly sockets = new Set<Socket | Duplex>();
  private readonly pacer?: Pacer;
  /** Publishes held back by the pace (tests, the benchmark). */
  paced = 0;

  constructor(options: EmbeddedBrokerOptions) {
    this.options = options;
    this.users = new Map(options.users.map((u) => [u.username, u]));
    if (options.pace !== undefined) this.pacer = new Pacer(options.pace);
  }

  /** Replaces the logins (e.g. after the credentials Secret changed); existing sessions stay. */
  setUsers(users: readonly BrokerUser[]): void {
    this.users = new Map(users.map((u) => [u.username, u]));
  }

  async start(): Promise<{ host: string; port: number; url: string }> {
    const broker = await Aedes.createBroker({
      authenticate: (client, username, password, done) => { this.authenticate(client, username, password, done); },
      authorizePublish: (client, packet, done) => {
        const cluster = client === null ? this.options.owner : this.sessions.get(client);
        if (cluster !== undefined && mayPublish({ cluster }, packet.topic)) { this.paceThen(client, cluster, () => { done(null); }); return; }
        this.options.logger?.warn({ cluster, topic: packet.topic }, 'refused a publish outside the cluster\'s own topics');
        done(new EdgeshifuError('forbidden', `${cluster ?? 'unknown'} may not publish on ${packet.topic}`));
      },
      authorizeSubscribe: (client, subscription, done) => {
        const cluster = this.sessions.get(client);
        if (cluster !== undefined && maySubscribe({ cluster }, subscription.topic, this.options.owner)) { done(null, subscription); return; }
        this.options.logger?.warn({ cluster, topic: subscription.topic }, 'refused a subscription');
        done(null, null);
      },
    });
    this.broker = broker;
    const handle = (socket: Socket): void => {
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      broker.handle(socket);
    };
    const server = this.options.tls === undefined ? createServer(handle) : createTlsServer({ key: this.options.tls.key, cert: this.options.tls.cert }, handle);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => { server.off('error', reject); resolve(); });
    });
    const address = server.address() as AddressInfo;
    const scheme = this.options.tls === undefined ? 'mqtt' : 'mqtts';
    return { host: address.address, port: address.port, url: `${scheme}://${address.address}:${address.port}` };
  }

  /**
   * A connection to this broker from inside its own process (BusOptions.broker): MQTT as over
   * TCP (login, ACL and all), but through an in-memory stream pair, so a delivery reaches the
   * cluster's own relay and agent in the same turn of the event loop, without a loopback socket
   * (two system calls and a wait for the next poll on every hop of every message).
   */
  connect(): Duplex {
    const [client, server] = duplexPair();
    const broker = this.broker;
    if (broker === undefined) {
      // Not started or stopped: the client sees a closed connection and retries with its backoff.
      process.nextTick(() => { client.destroy(new EdgeshifuError('unavailable', 'the embedded broker is not running')); });
      return client;
    }
    this.sockets.add(server);
    // One side closing closes the other, as a socket does (a pair only ends the other side).
    server.once('close', () => { this.sockets.delete(server); client.destroy(); });
    client.once('close', () => { server.destroy(); });
    broker.handle(server);
    return client;
  }

  /** Runs `go` now, or once the login's token is due (a neighbour over its pace waits, and so does the rest of what it sent). */
  private paceThen(client: Client | null, cluster: string, go: () => void): void {
    const wait = client === null || cluster === this.options.owner || this.pacer === undefined ? 0 : this.pacer.wait(cluster, Date.now());
    if (wait === 0) { go(); return; }
    this.paced += 1;
    setTimeout(go, wait).unref();
  }

  private authenticate(client: Client, username: string | undefined, password: Buffer | undefined, done: (error: AuthenticateError | null, success: boolean | null) => void): void {
    const user = username === undefined ? undefined : this.users.get(username);
    // Compare digests in constant time, so timing does not tell how much of a password was right.
    if (user === undefined || password === undefined || !timingSafeEqual(digest(user.password), digest(password))) {
      this.options.logger?.warn({ username }, 'refused a login');
      done(authError('bad user name or password'), false);
      return;
    }
    this.sessions.set(client, user.cluster);
    done(null, true);
  }

  async stop(): Promise<void> {
    const broker = this.broker;
    const server = this.server;
    this.broker = undefined;
    this.server = undefined;
    if (broker !== undefined) await new Promise<void>((resolve) => { broker.close(() => { resolve(); }); });
    for (const socket of this.sockets) socket.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
  }
}
