// One client and one session to the OPC UA server, kept up with backoff. node-opcua's own
// reconnection is off (maxRetry 0): when the channel or the session is lost, this loop drops the
// client, makes a new one and a new session, and tells its listeners (the subscriptions) so they
// are made again on the new session. While there is no session, calls fail at once with the last
// reason (502, or 403 for refused credentials).
import { mkdir, readFile } from 'node:fs/promises';
import type { ClientSession, OPCUAClient, UserIdentityInfo } from 'node-opcua-client';
import { Backoff, sleep } from '../../shared/backoff.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import { connectError } from './opcua-status.ts';
import type { OpcuaPlan } from './opcua-settings.ts';

type Lib = typeof import('node-opcua-client');

export interface ConnectionDeps {
  readonly lib: Lib;
  /** Writable directory for node-opcua's PKI (own certificate, trusted and rejected peers). */
  readonly pkiDir: string;
  /** The password of a UserName identity, read at each connect (the Secret may change). */
  readonly password: () => Promise<string>;
  readonly logger: Logger;
}

export type SessionListener = (session: ClientSession) => Promise<void>;

export class OpcuaConnection {
  private client: OPCUAClient | undefined;
  private current: ClientSession | undefined;
  private lastError: EdgeshifuError;
  private readonly listeners = new Set<SessionListener>();
  private readonly lossListeners = new Set<(err: EdgeshifuError) => void>();
  private lost: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private readonly stopper = new AbortController();

  private readonly plan: OpcuaPlan;
  private readonly deps: ConnectionDeps;

  constructor(plan: OpcuaPlan, deps: ConnectionDeps) {
    this.plan = plan;
    this.deps = deps;
    this.lastError = new EdgeshifuError('unavailable', `deviceShifu has not connected to the OPC UA server at ${plan.endpoint} yet`);
  }

  start(signal: AbortSignal): void {
    signal.addEventListener('abort', () => { this.stopper.abort(); }, { once: true });
    this.running = this.loop(this.stopper.signal);
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.lost?.();
    await this.running;
  }

  /** The open session, or the reason there is none. */
  session(): ClientSession {
    if (this.current === undefined) throw this.lastError;
    return this.current;
  }

  get connected(): boolean {
    return this.current !== undefined;
  }

  /** Called with every new session (after each reconnect), and at once when one is open. */
  onSession(listener: SessionListener): () => void {
    this.listeners.add(listener);
    if (this.current !== undefined) void this.notify(listener, this.current);
    return () => { this.listeners.delete(listener); };
  }

  /** Called when the session is lost and at each failed attempt to open one. */
  onLoss(listener: (err: EdgeshifuError) => void): () => void {
    this.lossListeners.add(listener);
    return () => { this.lossListeners.delete(listener); };
  }

  private down(err: EdgeshifuError): void {
    this.lastError = err;
    for (const listener of this.lossListeners) listener(err);
  }

  private async notify(listener: SessionListener, session: ClientSession): Promise<void> {
    try {
      await listener(session);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'OPC UA: restoring a subscription on the new session failed');
    }
  }

  private async loop(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff({ initialMs: 250, maxMs: 30_000 });
    // TypeScript narrows signal.aborted across awaits; the state can change while we wait
    const stopped = (): boolean => signal.aborted;
    while (!stopped()) {
      // armed before connecting: a channel lost between open and here still ends this session
      const gone = new Promise<void>((resolve) => { this.lost = resolve; });
      try {
        const session = await this.open(signal);
        backoff.reset();
        this.current = session;
        this.deps.logger.info({ endpoint: this.plan.endpoint, securityMode: this.plan.securityMode, securityPolicy: this.plan.securityPolicy, identity: this.plan.identity.mode }, 'OPC UA session open');
        for (const listener of this.listeners) void this.notify(listener, session);
        await gone;
        this.current = undefined;
        if (!stopped()) {
          this.deps.logger.warn({ endpoint: this.plan.endpoint }, 'OPC UA connection lost: reconnecting');
          this.down(new EdgeshifuError('unavailable', `OPC UA server at ${this.plan.endpoint} closed the session; deviceShifu is reconnecting`));
        }
      } catch (err) {
        if (stopped()) break;
        this.down(connectError(err, this.plan.endpoint));
        if (backoff.failures === 0) this.deps.logger.warn({ endpoint: this.plan.endpoint, err: this.lastError.message }, 'OPC UA connect failed: retrying with backoff');
      }
      await this.close();
      await sleep(backoff.next(), signal);
    }
    this.current = undefined;
    await this.close();
  }

  private async identity(): Promise<UserIdentityInfo> {
    const { lib, password } = this.deps;
    const id = this.plan.identity;
    if (id.mode === 'UserName') return { type: lib.UserTokenType.UserName, userName: id.username, password: await password() };
    if (id.mode === 'Certificate') {
      const crypto = await import('node-opcua-crypto');
      return { type: lib.UserTokenType.Certificate, certificateData: crypto.readCertificateChain(this.plan.certificateFile ?? '')[0] ?? Buffer.alloc(0), keyOperations: crypto.keyOperationsFromPrivateKey(crypto.readPrivateKey(this.plan.privateKeyFile ?? '')) };
    }
    return { type: lib.UserTokenType.Anonymous };
  }

  /** A given certificate names the application (its subjectAltName URI); servers check the two agree. */
  private async applicationUri(): Promise<string | undefined> {
    if (this.plan.certificateFile === undefined) return undefined;
    const crypto = await import('node-opcua-crypto');
    const [der] = crypto.readCertificateChain(this.plan.certificateFile);
    return der === undefined ? undefined : crypto.exploreCertificate(der).tbsCertificate.extensions?.subjectAltName?.uniformResourceIdentifier?.[0];
  }

  private async open(signal: AbortSignal): Promise<ClientSession> {
    const { lib, pkiDir } = this.deps;
    await mkdir(pkiDir, { recursive: true });
    // Certificate files are read first so that a missing one is reported as such, not as a TLS failure.
    if (this.plan.certificateFile !== undefined) await Promise.all([readFile(this.plan.certificateFile), readFile(this.plan.privateKeyFile ?? '')]).catch((caught: unknown) => {
      const err = caught as NodeJS.ErrnoException;
      throw new EdgeshifuError('invalid', `OPC UA certificate file ${err.path ?? ''} cannot be read (${err.code ?? err.message}): mount the ConfigMap or Secret that holds CertificateFileName and PrivateKeyFileName`);
    });
    const applicationUri = await this.applicationUri();
    const { OPCUACertificateManager } = await import('node-opcua-certificate-manager');
    const certificateManager = new OPCUACertificateManager({ rootFolder: pkiDir, automaticallyAcceptUnknownCertificate: true });
    const client = lib.OPCUAClient.create({
      applicationName: 'edgeshifu-deviceshifu',
      ...(applicationUri === undefined ? {} : { applicationUri }),
      endpointMustExist: false,
      securityMode: lib.MessageSecurityMode[this.plan.securityMode],
      securityPolicy: lib.SecurityPolicy[this.plan.securityPolicy],
      clientCertificateManager: certificateManager,
      ...(this.plan.certificateFile === undefined ? {} : { certificateFile: this.plan.certificateFile, privateKeyFile: this.plan.privateKeyFile }),
      connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
      keepSessionAlive: true,
      transportTimeout: this.plan.connectTimeoutMs,
      requestedSessionTimeout: 60_000,
    });
    this.client = client;
    const onLost = (): void => { this.lost?.(); };
    client.on('connection_lost', onLost);
    client.on('close', onLost);
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.plan.connectTimeoutMs)]);
    const abandon = (): void => { void client.disconnect().catch(() => undefined); };
    deadline.addEventListener('abort', abandon, { once: true });
    try {
      await client.connect(this.plan.endpoint);
      const session = await client.createSession(await this.identity());
      session.on('session_closed', onLost);
      session.on('keepalive_failure', onLost);
      return session;
    } catch (err) {
      if (deadline.aborted && !signal.aborted) throw new EdgeshifuError('unavailable', `OPC UA server at ${this.plan.endpoint} did not open a session within ${this.plan.connectTimeoutMs} ms (ConnectionTimeoutInMilliseconds)`, { cause: err });
      throw err;
    } finally {
      deadline.removeEventListener('abort', abandon);
    }
  }

  private async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.lost = undefined;
    if (client === undefined) return;
    client.removeAllListeners();
    // A dead channel can leave disconnect waiting on its own timeouts: give it a bounded time.
    await Promise.race([client.disconnect().catch(() => undefined), sleep(2000)]);
  }
}
