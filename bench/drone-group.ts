// One group of the DRONE benchmark's clusters, run in one process: their aedes brokers, relays
// and agents (bench/drone.ts runs one group in-process, or several in child processes through
// bench/drone-worker.ts, so that one process is not the bottleneck). Every hop between clusters
// goes through a real broker on loopback either way.
import { performance } from 'node:perf_hooks';
import type { DroneEvent, Timers } from '../controller/drone/agent-core.ts';
import type { Component } from '../controller/drone/model.ts';
import type { EmbeddedBroker } from '../shared/bus/broker.ts';
import { startAedes } from '../test/drone/support/brokers.ts';
import { keyringFor } from '../test/drone/support/keys.ts';
import { startFederation, waitForAdverts, type FederatedCluster } from '../test/drone/support/federation.ts';

export interface GroupSpec {
  /** Every cluster of the federation, c0 (the origin) first. */
  readonly ids: readonly string[];
  /** The clusters of this group. */
  readonly hosted: readonly string[];
  readonly edges: ReadonlyArray<readonly [string, string]>;
  readonly mode: 'open' | 'sealed';
  /** false: one shared broker, no relays. */
  readonly relays: boolean;
  readonly maxHops: number;
  /** MQTT QoS of every client (default 1). */
  readonly qos?: 0 | 1;
  /** Every cluster signs what it publishes, and receivers check (and require) signatures. */
  readonly signatures?: boolean;
  /** Agent timers other than the defaults (DEFAULT_TIMERS). */
  readonly timers?: Partial<Timers>;
  /** false: relays flood broadcasts over every link (RelayOptions.tree). */
  readonly tree?: boolean;
  /** Providers an origin calls per round (DroneConfig.fanout; 0: all); the agent's default when absent. */
  readonly fanout?: number;
  /** false: each cluster's agent and relay reach its broker over loopback TCP, not in memory (BusOptions.broker). */
  readonly inProcess?: boolean;
  /** false: one message per recipient instead of one for all (DroneAgentOptions.multicast). */
  readonly multicast?: boolean;
}

/** Agent publishes, relay forwards, and this process's CPU time (user + system, ms): less noisy than latency on a shared machine. */
export interface Counts { readonly msgs: number; readonly relayed: number; readonly cpuMs: number; readonly rssMb: number; readonly kinds: Readonly<Record<string, number>> }

export interface RunResult {
  readonly jobs: number;
  readonly failed: number;
  readonly reasons: string[];
  readonly agree: number[];
  readonly place: number[];
}

// Offers so large that a whole run leaves each provider's room within a percent of the roomiest:
// the origin then calls the nearest providers for every job (README, Figures). With 1,000 cores,
// each provider fell a percent behind after 5 jobs, and the calls moved, job after job, to
// providers further away (on a 15-cluster line, up to 9 relays by the 50th job), so the figures
// depended on the number of jobs in the run.
const plenty = { cpu: 1_000_000_000, memory: 1_000_000_000 };
const COMPONENTS: Component[] = [{ name: 'api', image: 'i', resources: { cpu: 500, memory: 512 } }, { name: 'db', image: 'i', resources: { cpu: 500, memory: 512 } }];

export class BenchGroup {
  private readonly spec: GroupSpec;
  private readonly stops: Array<() => Promise<void> | void> = [];
  private clusters = new Map<string, FederatedCluster>();
  private readonly brokers = new Map<string, EmbeddedBroker>();
  private readonly agreedAt = new Map<string, number>();
  /** Agent publishes by message kind. */
  private readonly kinds: Record<string, number> = {};

  constructor(spec: GroupSpec) {
    this.spec = spec;
  }

  /** Starts the brokers of this group (one shared broker for all clusters when there are no relays); their URLs by cluster. */
  async startBrokers(): Promise<Record<string, string>> {
    const urls: Record<string, string> = {};
    const mine = this.spec.relays ? this.spec.hosted : this.spec.hosted.slice(0, 1);
    for (const id of mine) {
      const b = await startAedes(id, this.spec.ids);
      this.stops.push(() => b.broker.stop());
      this.brokers.set(id, b.broker);
      urls[id] = b.url;
    }
    if (!this.spec.relays) for (const id of this.spec.ids) urls[id] = urls[mine[0] ?? ''] ?? '';
    return urls;
  }

  /** Starts relays and agents once every group's brokers are up. */
  async start(urls: Record<string, string>): Promise<void> {
    this.clusters = await startFederation({
      ids: this.spec.ids, hosted: this.spec.hosted, mode: this.spec.mode, edges: this.spec.edges, relays: this.spec.relays, maxHops: this.spec.maxHops,
      free: (id) => (id === this.spec.ids[0] ? { cpu: 0, memory: 0 } : plenty), brokerUrl: (id) => urls[id],
      embedded: (id) => this.brokers.get(id), inProcess: this.spec.inProcess !== false,
      ...(this.spec.timers === undefined ? {} : { timers: this.spec.timers }), ...(this.spec.tree === undefined ? {} : { tree: this.spec.tree }),
      ...(this.spec.fanout === undefined ? {} : { fanout: this.spec.fanout }), ...(this.spec.multicast === undefined ? {} : { multicast: this.spec.multicast }),
      bus: (id) => ({ ...(this.spec.qos === undefined ? {} : { qos: this.spec.qos }), ...(this.spec.signatures === true ? { keyring: keyringFor(id, this.spec.ids, true) } : {}) }),
      tap: (cluster, _topic, body) => {
        this.kinds[body.kind] = (this.kinds[body.kind] ?? 0) + 1;
        if (cluster === this.spec.ids[0] && body.kind === 'offload-request' && !this.agreedAt.has(body.app)) this.agreedAt.set(body.app, performance.now());
      },
    }, (fn) => { this.stops.push(fn); });
  }

  async waitAdverts(timeoutMs: number): Promise<void> {
    await waitForAdverts(this.clusters, this.spec.ids.slice(1), timeoutMs);
  }

  counts(): Counts {
    let msgs = 0;
    let relayed = 0;
    for (const c of this.clusters.values()) {
      msgs += c.agent.published;
      relayed += c.relay?.forwarded ?? 0;
    }
    const cpu = process.cpuUsage();
    return { msgs, relayed, cpuMs: (cpu.user + cpu.system) / 1000, rssMb: process.memoryUsage().rss / 1_048_576, kinds: { ...this.kinds } };
  }

  /** The origin's group only: submits jobs one after another, each once the previous one ended. */
  async run(jobs: number, seconds: number): Promise<RunResult> {
    const origin = this.clusters.get(this.spec.ids[0] ?? '');
    if (origin === undefined) throw new Error('the origin is not in this group');
    const result = { jobs: 0, failed: 0, reasons: new Set<string>(), agree: [] as number[], place: [] as number[] };
    const deadline = performance.now() + seconds * 1000;
    for (; result.jobs < jobs && performance.now() < deadline; result.jobs += 1) {
      const app = `job-${result.jobs}`;
      const done = decision(origin, app);
      const t0 = performance.now();
      origin.agent.submit({ app, origin: origin.id, components: COMPONENTS });
      const outcome = await done;
      const t1 = performance.now();
      if (outcome.type === 'failed') {
        result.failed += 1;
        result.reasons.add(outcome.reason.replace(/job-\d+/g, 'job-N'));
      } else {
        result.place.push(t1 - t0);
        result.agree.push((this.agreedAt.get(app) ?? t1) - t0);
      }
    }
    return { ...result, reasons: [...result.reasons].slice(0, 3) };
  }

  async stop(): Promise<void> {
    for (const stop of this.stops.reverse()) await stop();
    this.stops.length = 0;
  }
}

function decision(cluster: FederatedCluster, app: string): Promise<DroneEvent> {
  return new Promise((resolve) => {
    const listener = (e: DroneEvent): void => {
      if ((e.type === 'placed' || e.type === 'failed') && e.app === app) {
        cluster.agent.off('decision', listener);
        resolve(e);
      }
    };
    cluster.agent.on('decision', listener);
  });
}
