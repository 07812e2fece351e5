// The relays' route lists on the wire (routes.ts holds the pure rules): traffic from a neighbour
// teaches the way to its origin, and each relay sends every neighbour, on
// edgeshifu/v1/<self>/relayctl/<neighbour>, the origins it already gets from someone else
// (`{"v":1,"prune":[...]}`): after a change, when a link comes up or goes down, and every third
// of the lists' lifetime. With `tree` false nothing is sent, and the routes only steer directed
// and multi-recipient messages.
import type { Logger } from '../log.ts';
import { errorMessage } from '../errors.ts';
import type { BusClient } from './client.ts';
import { RelayRoutes } from './routes.ts';
import { relayControlFilter, relayControlTopic, type TopicInfo } from './topics.ts';

/** A neighbour link as the lists need it: whether it is up, and a way to send on it. */
export interface ListLink { readonly client: Pick<BusClient<never>, 'connected' | 'publishPayload'> }

export interface RouteListsOptions {
  readonly self: string;
  /** How long a neighbour's route list holds (sent again every third of it, and on every change). */
  readonly ttlMs: number;
  /** false: broadcasts are flooded over every link, and no list is sent. */
  readonly tree: boolean;
  /** The relay's neighbour links, by cluster (read, never changed, here). */
  readonly links: ReadonlyMap<string, ListLink>;
  readonly logger?: Logger;
}

/** Route changes come in bursts (a federation starting): one list per neighbour for each burst. */
const DECLARE_DELAY_MS = 10;

export class RouteLists {
  readonly routes: RelayRoutes;
  private readonly options: RouteListsOptions;
  private declareTimer?: NodeJS.Timeout;
  private refreshTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(options: RouteListsOptions) {
    this.options = options;
    this.routes = new RelayRoutes({ self: options.self, ttlMs: options.ttlMs });
  }

  /** Reads the neighbours' lists off this cluster's broker and sends this relay's own periodically (tree mode only). */
  async start(local: Pick<BusClient<never>, 'subscribeRaw'>): Promise<void> {
    if (!this.options.tree) return;
    await local.subscribeRaw(relayControlFilter(this.options.self), (topic, payload) => { this.onRoutes(topic, payload); });
    this.refreshTimer = setInterval(() => { this.declareAll(); }, this.options.ttlMs / 3);
    this.refreshTimer.unref();
  }

  /** Traffic from a neighbour names the way to its origin (the first one stays while its link is up). */
  learn(info: TopicInfo): void {
    const links = this.options.links;
    if (info.publisher === this.options.self || !links.has(info.publisher)) return;
    const current = this.routes.parent(info.origin);
    if (current !== undefined && links.get(current)?.client.connected !== true) this.routes.linkDown(current);
    if (this.routes.learn(info.origin, info.publisher)) this.declareSoon();
  }

  /** A link removed: the routes through it go. */
  removed(cluster: string): void {
    if (this.routes.linkDown(cluster)) this.declareSoon();
  }

  onLink(cluster: string, up: boolean): void {
    if (this.stopped || !this.options.tree) return;
    // Down: the routes through it go, and so do the lists that kept the other neighbours from sending them here.
    if (up || this.routes.linkDown(cluster)) this.declareSoon();
  }

  /** A neighbour's list: `{"v":1,"prune":[origins it gets elsewhere]}` on edgeshifu/v1/<it>/relayctl/<self>. */
  private onRoutes(topic: string, payload: Buffer): void {
    const from = topic.split('/')[2] ?? '';
    if (!this.options.links.has(from) || payload.length > 1 << 20) return;
    let prune: unknown;
    try {
      prune = (JSON.parse(payload.toString()) as { prune?: unknown }).prune;
    } catch {
      prune = undefined;
    }
    if (!Array.isArray(prune) || !prune.every((o) => typeof o === 'string')) {
      this.options.logger?.warn({ neighbour: from }, 'ignored a route list that is not {"prune": [cluster ids]}');
      return;
    }
    if (this.routes.received(from, prune, Date.now())) this.declareSoon();
  }

  private declareSoon(): void {
    if (this.stopped || !this.options.tree || this.declareTimer !== undefined) return;
    this.declareTimer = setTimeout(() => {
      this.declareTimer = undefined;
      this.declareAll();
    }, DECLARE_DELAY_MS);
    this.declareTimer.unref();
  }

  private declareAll(): void {
    for (const [cluster, link] of this.options.links) {
      if (!link.client.connected) continue;
      const payload = Buffer.from(JSON.stringify({ v: 1, prune: this.routes.pruneFor(cluster) }));
      link.client.publishPayload(relayControlTopic(this.options.self, cluster), payload, 'relayctl').catch((err: unknown) => {
        this.options.logger?.warn({ neighbour: cluster, err: errorMessage(err) }, 'could not send the route list');
      });
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.declareTimer);
    clearInterval(this.refreshTimer);
  }
}
