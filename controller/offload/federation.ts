// The DRONE side of the leader: the cluster's embedded broker with its logins from a
// Secret, the agent on its bus client, and the relay to every neighbour a Federation resource
// names. Started when this replica leads and stopped when it stops leading, so a federation
// always hears exactly one agent per cluster.
import type { KubernetesListObject, V1Secret } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { kubeStatusOf } from '../../shared/kube/errors.ts';
import { Informer } from '../../shared/kube/informer.ts';
import { EmbeddedBroker, type BrokerUser } from '../../shared/bus/broker.ts';
import { FederationRelay, type Neighbour } from '../../shared/bus/relay.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { EdgeshifuError, errorMessage } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import { DroneAgent } from '../drone/agent.ts';
import { asDroneBus, droneBusClient } from '../drone/bus.ts';
import type { BusMetrics } from '../../shared/bus/metrics.ts';
import type { DroneConfig } from '../drone/agent-core.ts';
import { DRONE_SCHEMAS, type DroneMessage } from '../drone/messages/index.ts';
import { MessageCodec } from '../../shared/bus/codec.ts';
import type { TSchema } from '@sinclair/typebox';
import type { Resources } from '../drone/model.ts';
import { keysOf, neighbourOf, type Federation } from '../drone/neighbours.ts';
import { droneKeyring } from '../drone/config.ts';
import { Keyring } from '../../shared/bus/signing.ts';
import { brokerPace, listenAddress, rateLimits, type OffloadSettings } from './settings.ts';
import { isLoopback } from '../../shared/bus/transport.ts';
import { admissionPolicy, hostingPolicyOf, imagePrefixes, type HostingPolicy } from './admission.ts';
import { OffloadApi } from './kube.ts';
import type { Condition } from '../../shared/crds/schema.ts';
import { isoTime } from '../../shared/time.ts';

export interface FederationDeps {
  readonly client: KubeClient;
  readonly settings: OffloadSettings & { droneCluster: string };
  readonly logger: Logger;
  readonly free: Resources;
  /** The bus counters, on the controller's registry (its /metrics). */
  readonly metrics?: BusMetrics;
  /** Other protocols' message kinds on the same signed connection and relay (REAR's, when it runs). */
  readonly extraSchemas?: Readonly<Record<string, TSchema>>;
}

/** An embedded broker off loopback serves TLS, unless insecure is asked for by name. */
export function plainListenRefusal(host: string, tls: boolean, allowInsecure: boolean): void {
  if (tls || allowInsecure || isLoopback(host)) return;
  throw new EdgeshifuError('invalid', `the embedded broker would listen in plain text on ${host}: set --drone-tls-secret (EDGESHIFU_DRONE_TLS_SECRET) to the Secret \`edgeshifu federation member\` made, or --drone-allow-insecure to accept clear text`);
}

function secretRef(value: string): { namespace: string; name: string } {
  const [namespace = '', name = ''] = value.split('/');
  return { namespace, name };
}

/** The Connected condition of a Federation when it changes, else undefined (pure). */
export function neighbourCondition(federation: Federation, heard: boolean, now: Date): Condition | undefined {
  const status = heard ? 'True' : 'False';
  const held = federation.status?.conditions?.find((c) => c.type === 'Connected');
  if (held?.status === status) return undefined;
  return {
    type: 'Connected', status, lastTransitionTime: isoTime(now.getTime()), observedGeneration: federation.metadata.generation,
    reason: heard ? 'AdvertsHeard' : 'NoAdverts',
    message: heard ? `${federation.spec.clusterId}'s slice adverts arrive` : `no live slice advert from ${federation.spec.clusterId}: its broker, the relay or the credentials in ${federation.spec.credentialsSecretRef.namespace}/${federation.spec.credentialsSecretRef.name} may be wrong`,
  };
}

export class DroneFederation {
  readonly agent: DroneAgent;
  readonly federations: Informer<Federation>;
  private readonly deps: FederationDeps;
  private readonly weights = new Map<string, number>();
  private readonly stopping = new AbortController();
  private broker?: EmbeddedBroker;
  private relay?: FederationRelay<DroneMessage>;
  private bus?: ReturnType<typeof droneBusClient>;
  private brokerUrl = '';
  private statusTimer?: NodeJS.Timeout;
  private keyring?: Keyring;
  private startedAt = Number.POSITIVE_INFINITY;
  private readonly api: OffloadApi;

  private metricsOption(): { metrics?: BusMetrics } {
    return this.deps.metrics === undefined ? {} : { metrics: this.deps.metrics };
  }

  constructor(deps: FederationDeps) {
    this.deps = deps;
    this.api = new OffloadApi(deps.client);
    const s = deps.settings;
    const config: DroneConfig = {
      cluster: s.droneCluster, mode: s.droneMode, scalePercent: s.droneScalePercent, weights: this.weights,
      agreementMs: s.droneAgreementMs, weakAgreementMs: s.droneWeakAgreementMs, gossipMs: s.droneGossipMs,
      advertIntervalMs: s.droneAdvertIntervalMs, advertTtlMs: s.droneAdvertTtlMs, advertGapMs: s.droneAdvertGapMs, replyTimeoutMs: s.droneReplyTimeoutMs,
      retryMs: s.droneRetryMs, batchMs: s.droneBatchMs, fanout: s.droneFanout, admit: admissionPolicy(s.droneCluster, imagePrefixes(s.droneAllowedImages), (origin) => this.hostingPolicy(origin)),
    };
    this.agent = new DroneAgent({ config, free: deps.free, bus: { publish: (topic, body) => this.requireBus().publish(topic, body), subscribe: (filters, handler) => this.requireBus().subscribe(filters, handler) }, logger: deps.logger, signal: this.stopping.signal });
    const path = `/apis/${GROUP}/${VERSION}/federations`;
    this.federations = new Informer<Federation>({
      path, logger: deps.logger.child({ informer: 'Federation' }), watch: deps.client.watch,
      list: () => deps.client.request<KubernetesListObject<Federation>>('GET', path),
    });
  }

  get cluster(): string {
    return this.deps.settings.droneCluster;
  }

  /** What this cluster runs for a neighbour (its Federation's `hosting`); undefined: nothing, it has no Federation here. */
  hostingPolicy(origin: string): HostingPolicy | undefined {
    return hostingPolicyOf(this.federations.list(), origin);
  }

  /** Whether this cluster signs what it publishes and drops what it cannot check. */
  get signing(): { signs: boolean; requires: boolean } {
    return { signs: this.keyring?.signs === true, requires: this.keyring?.require === true };
  }

  /** Whether the agent has heard a neighbour, or waited an advert's lifetime for one. */
  settled(): boolean {
    return this.agent.providers().length > 0 || Date.now() - this.startedAt >= this.deps.settings.droneAdvertTtlMs;
  }

  /** The signed bus connection (started by start()): REAR publishes and subscribes on it too. */
  get connection(): ReturnType<typeof droneBusClient> {
    if (this.bus === undefined) throw new EdgeshifuError('unavailable', 'the DRONE bus is not started');
    return this.bus;
  }

  /** This cluster's signing key and its neighbours' public keys (from the Federations). */
  get keys(): Keyring {
    if (this.keyring === undefined) throw new EdgeshifuError('unavailable', 'the DRONE bus is not started');
    return this.keyring;
  }

  /** Where this cluster's broker listens (the embedded one's real port once started). */
  get url(): string {
    return this.brokerUrl;
  }

  private requireBus(): ReturnType<typeof asDroneBus> {
    if (this.bus === undefined) throw new EdgeshifuError('unavailable', 'the DRONE bus is not started');
    return asDroneBus(this.bus);
  }

  private get login(): { username: string; password: string } {
    const s = this.deps.settings;
    if (s.dronePassword === undefined) throw new EdgeshifuError('invalid', 'DRONE needs a broker password: set --drone-password or EDGESHIFU_DRONE_PASSWORD');
    return { username: s.droneUsername ?? s.droneCluster, password: s.dronePassword };
  }

  async start(): Promise<void> {
    const { settings, logger } = this.deps;
    const login = this.login;
    const tls = await this.tlsMaterial();
    if (settings.droneBrokerUrl === undefined) {
      const { host, port } = listenAddress(settings.droneBrokerListen);
      plainListenRefusal(host, tls !== undefined, settings.droneAllowInsecure);
      this.broker = new EmbeddedBroker({ owner: settings.droneCluster, host, port, users: await this.brokerUsers(), logger: logger.child({ part: 'broker' }), pace: brokerPace(settings.droneBrokerPace), ...(tls === undefined ? {} : { tls }) });
      const started = await this.broker.start();
      this.brokerUrl = `${tls === undefined ? 'mqtt' : 'mqtts'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${started.port}`;
    } else this.brokerUrl = settings.droneBrokerUrl;
    const guard = { limits: rateLimits(settings.droneRateLimits), replayWindow: { pastMs: settings.droneReplayWindowSeconds * 1000, futureMs: settings.droneReplayWindowSeconds * 100 } };
    const own = { ...guard, allowInsecure: settings.droneAllowInsecure, ...(tls === undefined ? {} : { tls: { ca: tls.ca } }) };
    const codec = new MessageCodec<DroneMessage>({ ...DRONE_SCHEMAS, ...this.deps.extraSchemas });
    // signs what this cluster publishes (with a key) and checks senders whose Federation has a public key
    this.keyring = droneKeyring(settings, new Map()) ?? new Keyring({ peers: new Map(), require: false });
    // The embedded broker runs in this process: the agent and the relay reach it in memory, not over a loopback socket (shared/bus/broker.ts connect).
    const embedded = this.broker === undefined ? {} : { broker: this.broker };
    this.bus = droneBusClient({ url: this.brokerUrl, cluster: settings.droneCluster, ...login, ...own, keyring: this.keyring, ignoreOwn: true, logger, signal: this.stopping.signal, ...embedded, ...this.metricsOption() }, codec);
    await this.bus.start();
    const relay = new FederationRelay<DroneMessage>({ cluster: settings.droneCluster, local: { url: this.brokerUrl, ...login, ...own, ...embedded }, neighbours: [], publisher: this.bus, logger, signal: this.stopping.signal, ...this.metricsOption() }, codec);
    this.relay = relay;
    await relay.start();
    for (const event of ['add', 'update', 'delete'] as const) this.federations.on(event, () => { void this.refreshNeighbours(); });
    await this.federations.start();
    await this.refreshNeighbours();
    await this.agent.start();
    this.startedAt = Date.now();
    const every = Math.max(1_000, settings.droneAdvertIntervalMs);
    this.statusTimer = setInterval(() => { void this.reportNeighbours(); }, every);
    this.statusTimer.unref();
    logger.info({ cluster: settings.droneCluster, broker: this.brokerUrl }, 'DRONE agent started');
  }

  /** Each Federation says whether its neighbour is heard (a live slice advert), written on change. */
  private async reportNeighbours(): Promise<void> {
    const heard = new Set(this.agent.providers());
    for (const federation of this.federations.list()) {
      const condition = neighbourCondition(federation, heard.has(federation.spec.clusterId), new Date());
      if (condition === undefined) continue;
      try {
        await this.api.patchStatus('Federation', { metadata: { name: federation.metadata.name } }, { observedGeneration: federation.metadata.generation, conditions: [condition] });
      } catch (err) {
        this.deps.logger.debug({ federation: federation.metadata.name, err: errorMessage(err) }, 'federation status not written; next round');
      }
    }
  }

  /** The member's certificate, key and the federation CA from --drone-tls-secret (edgeshifu federation member makes it). */
  private async tlsMaterial(): Promise<{ key: string; cert: string; ca: string } | undefined> {
    const ref = this.deps.settings.droneTlsSecret;
    if (ref === undefined) return undefined;
    const { namespace, name } = secretRef(ref);
    const data = (await this.secret(namespace, name))?.data;
    if (data === undefined) throw new EdgeshifuError('not-found', `the broker TLS Secret ${ref} does not exist: make it with \`edgeshifu federation member\``);
    const value = (key: string): string => {
      const v = data[key];
      if (v === undefined) throw new EdgeshifuError('invalid', `the broker TLS Secret ${ref} has no ${key}: it needs tls.crt, tls.key and ca.crt (edgeshifu federation member)`);
      return Buffer.from(v, 'base64').toString('utf8');
    };
    return { cert: value('tls.crt'), key: value('tls.key'), ca: value('ca.crt') };
  }

  /** The embedded broker's logins: this cluster, and every cluster listed in the users Secret. */
  private async brokerUsers(): Promise<BrokerUser[]> {
    const own = { ...this.login, cluster: this.deps.settings.droneCluster };
    const ref = this.deps.settings.droneUsersSecret;
    if (ref === undefined) return [own];
    const { namespace, name } = secretRef(ref);
    const secret = await this.secret(namespace, name);
    if (secret === undefined) throw new EdgeshifuError('not-found', `the broker logins Secret ${ref} does not exist`);
    const peers = Object.entries(secret.data ?? {}).filter(([cluster]) => cluster !== own.username)
      .map(([cluster, value]) => ({ username: cluster, cluster, password: Buffer.from(value, 'base64').toString('utf8') }));
    return [own, ...peers];
  }

  private async secret(namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await this.deps.client.request<V1Secret>('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`);
    } catch (err) {
      if (kubeStatusOf(err)?.code === 404) return undefined;
      throw err;
    }
  }

  /** Federation resources → relay links and proportion weights; a bad one is logged and skipped. */
  private async refreshNeighbours(): Promise<void> {
    const neighbours: Neighbour[] = [];
    this.weights.clear();
    for (const federation of this.federations.list()) {
      const ref = federation.spec.credentialsSecretRef;
      try {
        const secret = await this.secret(ref.namespace, ref.name);
        neighbours.push(neighbourOf(federation, secret?.data));
        this.weights.set(federation.spec.clusterId, federation.spec.weight ?? 1);
      } catch (err) {
        this.deps.logger.warn({ federation: federation.metadata.name, err: errorMessage(err) }, 'federation neighbour skipped');
      }
    }
    await this.relay?.setNeighbours(neighbours);
    const { keys, errors } = keysOf(this.federations.list());
    for (const err of errors) this.deps.logger.warn({ err: err.message }, 'federation public key skipped');
    this.keyring?.setPeers(keys);
  }

  async stop(): Promise<void> {
    if (this.statusTimer !== undefined) clearInterval(this.statusTimer);
    this.agent.stop();
    await this.federations.stop();
    this.stopping.abort();
    await this.relay?.stop();
    await this.bus?.stop();
    await this.broker?.stop();
  }
}
