// An in-memory federation for tests of the pure core: virtual time, every message encoded and
// validated as on the wire, and a seeded fault-injecting relay that drops, duplicates, reorders
// and delays messages at given rates. Deterministic for a given seed.
import { SeenIds } from '../../../shared/bus/dedup.ts';
import { DroneCore, DEFAULT_TIMERS, type DroneConfig, type DroneEvent, type Output, type Timers } from '../../../controller/drone/agent-core.ts';
import { onTheWire } from '../../../controller/drone/core/addressing.ts';
import { droneCodec, type DroneMessage } from '../../../controller/drone/messages/index.ts';
import type { Job, Resources } from '../../../controller/drone/model.ts';

export interface Faults {
  readonly drop: number;
  readonly duplicate: number;
  readonly reorder: number;
  /** Extra delay, uniformly 0..delayMs, on each delivery. */
  readonly delayMs: number;
}

// Compiling the schemas takes a while; one codec serves every simulated federation of a test file.
const CODEC = droneCodec();

export const NO_FAULTS: Faults = { drop: 0, duplicate: 0, reorder: 0, delayMs: 0 };

export interface ClusterSpec {
  readonly id: string;
  readonly free: Resources;
  readonly scalePercent: number;
  readonly weights?: ReadonlyMap<string, number>;
  /** The cluster's policy on what it runs for others (DroneConfig.admit). */
  readonly admit?: DroneConfig['admit'];
}

interface Delivery { readonly at: number; readonly seq: number; readonly to: string; readonly payload: Buffer }

/** mulberry32: a small seeded PRNG, enough for fault injection. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Observation {
  readonly at: number;
  readonly cluster: string;
  readonly event: DroneEvent;
}

export class SimFederation {
  now = 0;
  readonly agents = new Map<string, DroneCore>();
  readonly events: Observation[] = [];
  readonly sent: Array<{ at: number; from: string; message: DroneMessage }> = [];
  /** Messages delivered to each cluster (after de-duplication). */
  readonly received = new Map<string, DroneMessage[]>();
  invalid = 0;
  readonly invalidDetails: string[] = [];
  private readonly queue: Delivery[] = [];
  private readonly seen = new Map<string, SeenIds>();
  private readonly down = new Set<string>();
  private readonly random: () => number;
  private readonly codec = CODEC;
  private seq = 0;
  private readonly afterStep: Array<() => void> = [];

  /** Messages for several clusters go as one message naming them all (DroneAgentOptions.multicast), delivered to each. */
  private readonly multicast: boolean;

  constructor(clusters: readonly ClusterSpec[], options: { seed: number; faults?: Faults; mode?: DroneConfig['mode']; timers?: Partial<Timers>; latencyMs?: number; fanout?: number; multicast?: boolean; reclaimMoves?: number }) {
    this.random = prng(options.seed);
    this.multicast = options.multicast ?? true;
    this.faults = options.faults ?? NO_FAULTS;
    this.latencyMs = options.latencyMs ?? 1;
    for (const c of clusters) {
      const config: DroneConfig = {
        cluster: c.id, mode: options.mode ?? 'open', scalePercent: c.scalePercent, weights: c.weights ?? new Map(), ...DEFAULT_TIMERS, ...options.timers,
        ...(options.fanout === undefined ? {} : { fanout: options.fanout }), ...(options.reclaimMoves === undefined ? {} : { reclaimMoves: options.reclaimMoves }), ...(c.admit === undefined ? {} : { admit: c.admit }),
      };
      this.agents.set(c.id, new DroneCore(config, c.free));
      this.seen.set(c.id, new SeenIds());
      this.received.set(c.id, []);
    }
  }

  private readonly faults: Faults;
  private readonly latencyMs: number;

  /** Called after every delivery and tick (for invariants that must hold at all times). */
  onStep(check: () => void): void {
    this.afterStep.push(check);
  }

  agent(id: string): DroneCore {
    const a = this.agents.get(id);
    if (a === undefined) throw new Error(`no cluster ${id}`);
    return a;
  }

  /** A cluster that vanished: it neither sends nor receives (its adverts then expire at its peers). */
  disconnect(id: string): void {
    this.down.add(id);
  }

  /** The cluster is back (its agent kept its state). */
  reconnect(id: string): void {
    this.down.delete(id);
  }

  submit(job: Job): void {
    this.emit(job.origin, this.agent(job.origin).submit(job, this.now));
  }

  /** The job submitted again with reclaim (DroneCore.reclaim). */
  reclaim(job: Job): void {
    this.emit(job.origin, this.agent(job.origin).reclaim(job, this.now));
  }

  withdraw(origin: string, app: string): Output {
    const out = this.agent(origin).withdraw(app, this.now);
    this.emit(origin, out);
    return out;
  }

  setResources(id: string, free: Resources, scalePercent?: number): void {
    this.emit(id, this.agent(id).setResources(free, this.now, scalePercent));
  }

  /** Starts every agent (their first slice adverts). */
  start(): void {
    for (const [id, agent] of this.agents) this.emit(id, agent.tick(this.now));
  }

  private emit(from: string, out: Output): void {
    for (const event of out.events) this.events.push({ at: this.now, cluster: from, event });
    if (this.down.has(from)) return;
    for (const m of out.messages.flatMap((o) => onTheWire(o, this.multicast))) {
      this.seq += 1;
      const message = { ...m.body, v: 1 as const, id: `${from}-${String(this.seq).padStart(8, '0')}`, sender: from, timestamp: this.now, hops: 0 } as DroneMessage;
      this.sent.push({ at: this.now, from, message });
      const payload = this.codec.encode(message);
      const targets = m.to !== undefined ? [m.to] : m.recipients ?? [...this.agents.keys()].filter((id) => id !== from);
      for (const to of targets) this.route(to, payload);
    }
  }

  private route(to: string, payload: Buffer): void {
    const r = this.random;
    if (r() < this.faults.drop) return;
    const copies = r() < this.faults.duplicate ? 2 : 1;
    for (let i = 0; i < copies; i += 1) {
      const reorder = r() < this.faults.reorder ? 5 + Math.floor(r() * 20) : 0;
      const at = this.now + this.latencyMs + Math.floor(r() * (this.faults.delayMs + 1)) + reorder;
      this.seq += 1;
      this.queue.push({ at, seq: this.seq, to, payload });
    }
  }

  private nextDelivery(): Delivery | undefined {
    let best: Delivery | undefined;
    for (const d of this.queue) if (best === undefined || d.at < best.at || (d.at === best.at && d.seq < best.seq)) best = d;
    return best;
  }

  private deliver(d: Delivery): void {
    this.queue.splice(this.queue.indexOf(d), 1);
    if (this.down.has(d.to)) return;
    const decoded = this.codec.decode(d.payload);
    if (!decoded.ok) {
      this.invalid += 1;
      this.invalidDetails.push(`${decoded.reason}: ${decoded.detail} in ${d.payload.toString().slice(0, 300)}`);
      return;
    }
    if (this.seen.get(d.to)?.check(decoded.message.id, this.now) === true) return;
    this.received.get(d.to)?.push(decoded.message);
    this.emit(d.to, this.agent(d.to).receive(decoded.message, this.now));
  }

  /** Runs until `until` (virtual ms) or until nothing is left to do before it. */
  run(until: number): void {
    for (let steps = 0; steps < 2_000_000; steps += 1) {
      const delivery = this.nextDelivery();
      let wake = Number.POSITIVE_INFINITY;
      let sleeper: string | undefined;
      for (const [id, agent] of this.agents) {
        const t = this.down.has(id) ? Number.POSITIVE_INFINITY : agent.nextWakeup();
        if (t < wake) { wake = t; sleeper = id; }
      }
      const next = Math.min(delivery?.at ?? Number.POSITIVE_INFINITY, wake);
      if (next > until) { this.now = until; return; }
      this.now = Math.max(this.now, next);
      if (delivery !== undefined && delivery.at <= wake) this.deliver(delivery);
      else if (sleeper !== undefined) this.emit(sleeper, this.agent(sleeper).tick(this.now));
      for (const check of this.afterStep) check();
    }
    throw new Error('the federation did not settle within 2,000,000 steps');
  }

  outcomes(): Map<string, DroneEvent[]> {
    const out = new Map<string, DroneEvent[]>();
    for (const { event } of this.events) {
      if (event.type !== 'placed' && event.type !== 'failed') continue;
      const key = `${event.origin}/${event.app}`;
      out.set(key, [...(out.get(key) ?? []), event]);
    }
    return out;
  }
}
