// The DRONE agent's thin shell: feeds the pure core (agent-core.ts) with bus messages, submitted
// jobs, the resources daemon's figures and a real clock, publishes what the core says on the
// versioned topics and emits its decisions. One agent per cluster, under the controller's leader
// election; the Kubernetes workflow that acts on decisions (OffloadRequest/HostRequest CRs) is
// controller/offload/'s and subscribes to `decision`.
import { EventEmitter } from 'node:events';
import type { Logger } from '../../shared/log.ts';
import { agentFilters, broadcastTopic, directTopic, multiFilters, multiTopic } from '../../shared/bus/topics.ts';
import { DroneCore, type DroneConfig, type DroneEvent, type Output } from './agent-core.ts';
import { onTheWire, type WireMessage } from './core/addressing.ts';
import { DRONE_SCHEMAS, type DroneBody, type DroneMessage } from './messages/index.ts';
import type { Job, Resources } from './model.ts';
import { errorMessage } from '../../shared/errors.ts';

/** What the agent needs of a bus (BusClient fits; tests may pass another transport). */
export interface DroneBus {
  publish(topic: string, body: DroneBody): Promise<unknown>;
  subscribe(filters: readonly string[], handler: (message: DroneMessage) => void): Promise<void>;
}

export interface DroneAgentOptions {
  readonly config: DroneConfig;
  /** Free capacity at start (resources daemon). */
  readonly free: Resources;
  readonly bus: DroneBus;
  /**
   * Messages for several clusters go out once, on a multi-recipient topic, and relays split them
   * where the routes part (default true). Only a broker's owner may read those topics, so this
   * needs every cluster on a broker of its own, as its owner (relays or a Mosquitto bridge carry
   * the rest); false: one message to each recipient (several clusters on one broker).
   */
  readonly multicast?: boolean;
  readonly clock?: () => number;
  readonly logger?: Logger;
  readonly signal?: AbortSignal;
}

/** Messages the auction core does not handle: the Kubernetes side of offloading does. */
export type OffloadMessage = Extract<DroneMessage, { kind: 'lease' | 'host-status' | 'lease-renewal' | 'lease-renewed' | 'launch-grant' }>;
const OFFLOAD_KINDS: ReadonlySet<string> = new Set<OffloadMessage['kind']>(['lease', 'host-status', 'lease-renewal', 'lease-renewed', 'launch-grant']);
const isOffloadMessage = (message: DroneMessage): message is OffloadMessage => OFFLOAD_KINDS.has(message.kind);
type DirectedBody = Extract<DroneBody, { to: string }>;

export interface DroneAgentEvents {
  decision: [DroneEvent];
  offload: [OffloadMessage];
  /** A host refused one of this cluster's OffloadRequests (NACK); the auction core tries the next voter. */
  refused: [{ app: string; component: string; host: string; reason: string }];
}

/** Longest sleep between ticks, so a stalled clock or a missed wakeup heals by itself. */
const MAX_SLEEP_MS = 1_000;

export class DroneAgent extends EventEmitter<DroneAgentEvents> {
  readonly cluster: string;
  private readonly core: DroneCore;
  private readonly options: DroneAgentOptions;
  private readonly clock: () => number;
  private timer?: NodeJS.Timeout;
  private timerAt = 0;
  private immediate?: NodeJS.Immediate;
  /** Messages received in this turn of the event loop, handled together once the turn's I/O is done. */
  private inbox: DroneMessage[] = [];
  private stopped = false;
  /** Messages published by this agent, for the benchmark's messages-per-job figure. */
  published = 0;

  constructor(options: DroneAgentOptions) {
    super();
    this.options = options;
    this.cluster = options.config.cluster;
    this.clock = options.clock ?? Date.now;
    this.core = new DroneCore(options.config, options.free);
    options.signal?.addEventListener('abort', () => { this.stop(); }, { once: true });
  }

  async start(): Promise<void> {
    const filters = [...agentFilters(this.cluster), ...(this.multicast ? multiFilters() : [])];
    await this.options.bus.subscribe(filters, (message) => {
      for (const step of this.receiveSteps) if (step(message) === 'done') return;
    });
    this.apply(this.core.tick(this.clock()));
  }

  /**
   * The agent's end of the receive path, after the bus client's steps (shared/bus/receive.ts)
   * have decoded, checked and de-duplicated the message: run in order, each may end it.
   */
  private readonly receiveSteps: ReadonlyArray<(message: DroneMessage) => 'done' | undefined> = [
    this.skipOwnEcho.bind(this),
    this.skipOtherProtocols.bind(this),
    this.handToOffloading.bind(this),
    this.noteRefusal.bind(this),
    this.queueForCore.bind(this),
  ];

  /** Its own messages echoed by its broker (a client shared with the relay gets them): the core ignores them, so they need no turn of it. */
  private skipOwnEcho(message: DroneMessage): 'done' | undefined {
    return message.sender === this.cluster && message.kind !== 'resources' ? 'done' : undefined;
  }

  /** Another protocol's message on the shared connection (REAR's): not the auction's. */
  private skipOtherProtocols(message: DroneMessage): 'done' | undefined {
    return Object.hasOwn(DRONE_SCHEMAS, message.kind) ? undefined : 'done';
  }

  /** Leases, their renewals and hosts' reports are the Kubernetes side's (`offload` events), not the auction core's. */
  private handToOffloading(message: DroneMessage): 'done' | undefined {
    if (!isOffloadMessage(message)) return undefined;
    if (message.to === this.cluster && message.sender !== this.cluster && !this.stopped) this.emit('offload', message);
    return 'done';
  }

  /** A host's NACK to this cluster is told (`refused`), and the core still gets it to try the next voter. */
  private noteRefusal(message: DroneMessage): undefined {
    if (message.kind !== 'host-reply' || message.verdict !== 'NACK' || message.to !== this.cluster) return undefined;
    // A refused move (core/move.ts) says nothing against the host for the app's next auction.
    if (message.requestId.includes('.move.')) return undefined;
    this.options.logger?.info({ app: message.app, component: message.component, host: message.sender, reason: message.reason }, 'offload request refused (NACK)');
    this.emit('refused', { app: message.app, component: message.component, host: message.sender, reason: message.reason ?? '' });
    return undefined;
  }

  /** Into the inbox, handled with the rest of this turn's messages by the core (core/receive.ts routes each by kind). */
  private queueForCore(message: DroneMessage): 'done' {
    this.inbox.push(message);
    this.wake();
    return 'done';
  }

  /** Places a job (local first, else auction). Throws an 'invalid' EdgeshifuError for a bad job. */
  submit(job: Job): void {
    this.apply(this.core.submit(job, this.clock()));
  }

  withdraw(app: string): void {
    this.apply(this.core.withdraw(app, this.clock()));
  }

  /** A job that did not fit, again with reclaim (DroneCore.reclaim): at most `reclaimMoves` placed, not launched components move for it. */
  reclaim(job: Job): void {
    this.apply(this.core.reclaim(job, this.clock()));
  }

  /** A component launched here (hosted) or of this origin's app; unless `movable`, reclaim never moves it from now on. */
  launched(which: Parameters<DroneCore['launched']>[0]): void {
    this.apply(this.core.launched(which, this.clock()));
  }

  /** Where this origin's placed app is now (a move re-points one). */
  placement(app: string): ReturnType<DroneCore['placement']> {
    return this.core.placement(app);
  }

  /** The resources daemon's input as plain data: free capacity and, optionally, a new scale. */
  setResources(free: Resources, scalePercent?: number): void {
    this.apply(this.core.setResources(free, this.clock(), scalePercent));
  }

  restoreHosted(entries: Parameters<DroneCore['restoreHosted']>[0]): void {
    this.apply(this.core.restoreHosted(entries, this.clock()));
  }

  releaseHosted(origin: string, app: string, component: string): void {
    this.apply(this.core.releaseHosted(origin, app, component, this.clock()));
  }

  /** Sends one directed message of the offloading workflow (lease, host-status and their batched renewals). */
  send(body: DirectedBody): void {
    this.apply({ messages: [{ to: body.to, body }], events: [] });
  }

  hosted(): ReturnType<DroneCore['hosted']> {
    return this.core.hosted();
  }

  /** The slice this cluster offers the federation now. */
  offered(): Resources {
    return this.core.offered();
  }

  providers(): string[] {
    return this.core.providers(this.clock());
  }

  /** What each neighbour's live slice advert offers now (a reclaim is tried once per change of these). */
  adverts(): ReturnType<DroneCore['adverts']> {
    return this.core.adverts(this.clock());
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.inbox = [];
  }

  private get multicast(): boolean {
    return this.options.multicast ?? true;
  }

  private topicOf(m: WireMessage): string {
    if (m.recipients !== undefined) return multiTopic(this.cluster, m.recipients, m.body.kind);
    return m.to === undefined ? broadcastTopic(this.cluster, m.body.kind) : directTopic(this.cluster, m.to, m.body.kind);
  }

  private apply(out: Output): void {
    if (this.stopped) return;
    for (const m of out.messages.flatMap((o) => onTheWire(o, this.multicast))) {
      const topic = this.topicOf(m);
      this.published += 1;
      this.options.bus.publish(topic, m.body).catch((err: unknown) => {
        // Lost messages are normal: gossip and retries in the core send again.
        this.options.logger?.warn({ topic, err: errorMessage(err) }, 'publish failed');
      });
    }
    for (const event of out.events) this.emit('decision', event);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const now = this.clock();
    const at = Math.min(now + MAX_SLEEP_MS, this.core.nextWakeup());
    // Due now (a batch of votes, an agreement reached): right after this turn's I/O, not a timer's millisecond later.
    if (at <= now) {
      this.wake();
      return;
    }
    // Most inputs leave the next wakeup where it was: keep that timer rather than make a new one.
    if (this.timer !== undefined && this.timerAt === at) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.apply(this.core.tick(this.clock()));
    }, at - now);
    this.timer.unref();
  }

  /** Runs the inbox and the due timers once the current turn of the event loop has delivered everything it read. */
  private wake(): void {
    if (this.stopped || this.immediate !== undefined) return;
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      const messages = this.inbox;
      this.inbox = [];
      const now = this.clock();
      this.apply(messages.length === 0 ? this.core.tick(now) : this.core.receiveAll(messages, now));
    });
  }
}
