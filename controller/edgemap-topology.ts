// Feeds the edgeMap from what the reconcilers see (add/remove devices and nodes). The
// map refuses links to vertices it does not hold yet, so links wait here until both ends exist.
// A device's links are its own (nodes name only nodes as neighbours): once made they are read back
// from the map, and only those still waiting for their node are held here, which spares 10,000
// devices a record each (footprint).
import type { EdgeMap, LinkType, NodeAttributes } from '../edgemap/index.ts';
import type { Logger } from '../shared/log.ts';
import type { ClusterFacts, DeviceFacts, NodeFacts, OffloadFacts, Topology } from './topology.ts';
import { errorMessage } from '../shared/errors.ts';

interface WantedLink {
  readonly a: string;
  readonly b: string;
  readonly type: LinkType;
  readonly attributes: { latencyMs?: number; bandwidthMbps?: number };
}

export class EdgeMapTopology implements Topology {
  private readonly map: EdgeMap;
  private readonly logger: Logger;
  /** Links each node asked for (its neighbours), re-tried when the other end appears. */
  private readonly wanted = new Map<string, WantedLink[]>();
  /** Device links waiting for their node: not yet made, or unmade when the node went. */
  private readonly waiting = new Map<string, WantedLink[]>();
  /** Offloaded components by deployment (namespace/name): component key → the cluster running it. */
  private readonly offloads = new Map<string, Map<string, string>>();

  constructor(map: EdgeMap, logger: Logger) {
    this.map = map;
    this.logger = logger;
  }

  upsertDevice(key: string, facts: DeviceFacts): void {
    this.guard(key, () => {
      this.map.upsertDevice(key, {
        location: facts.spec.location,
        phase: facts.phase,
        nodeName: facts.nodeName,
        deviceShifuUrl: facts.url,
        protocol: facts.spec.protocol,
      });
      const links: WantedLink[] = (facts.links ?? []).map((l) => ({ a: l.node, b: key, type: l.type, attributes: {} }));
      // the node serving the device is linked to it even before shifud reports how it sees it
      if (facts.nodeName !== undefined && !links.some((l) => l.a === facts.nodeName)) {
        links.push({ a: facts.nodeName, b: key, type: (facts.spec.connection ?? 'Ethernet'), attributes: {} });
      }
      this.relinkDevice(key, links);
    });
  }

  removeDevice(key: string): void {
    this.waiting.delete(key);
    this.guard(key, () => { this.map.removeDevice(key); });
  }

  upsertNode(name: string, facts: NodeFacts): void {
    this.guard(name, () => {
      const attributes: NodeAttributes = {
        location: facts.spec?.location,
        phase: facts.unavailable === undefined ? 'Ready' : 'NotReady',
        capacity: facts.status?.capacity,
        free: facts.status?.free,
      };
      this.map.upsertNode(name, attributes);
      this.relink(name, (facts.spec?.neighbours ?? []).map((n) => ({
        a: name, b: n.node, type: n.linkType, attributes: { latencyMs: n.latencyMs, bandwidthMbps: n.bandwidthMbps },
      })));
      // links others asked for that waited on this node
      for (const [owner, links] of this.wanted) if (owner !== name) this.tryLinks(links.filter((l) => l.a === name || l.b === name));
      for (const [device, links] of this.waiting) {
        this.tryLinks(links.filter((l) => l.a === name));
        this.keepWaiting(device, links);
      }
    });
  }

  removeNode(name: string): void {
    this.wanted.delete(name);
    // the links devices asked for go with the node; they wait for it to come back
    if (this.map.has(name)) {
      this.map.forEachNeighbour(name, (other, link) => {
        if (this.map.vertex(other)?.kind !== 'edgeDevice') return;
        const { latencyMs, bandwidthMbps } = link;
        this.waiting.set(other, [...(this.waiting.get(other) ?? []), { a: name, b: other, type: link.type, attributes: { latencyMs, bandwidthMbps } }]);
      });
    }
    this.guard(name, () => { this.map.removeNode(name); });
  }

  upsertCluster(clusterId: string, facts: ClusterFacts): void {
    this.guard(clusterId, () => {
      this.map.upsertCluster(clusterId, dropUndefined({ phase: facts.phase, broker: facts.broker, message: facts.message }));
      // components that waited for their cluster
      for (const components of this.offloads.values()) {
        for (const [component, cluster] of components) if (cluster === clusterId && this.map.has(component)) this.map.link(component, clusterId, 'Offload');
      }
    });
  }

  removeCluster(clusterId: string): void {
    // its components stay on the map, unlinked, until their deployment says otherwise
    this.guard(clusterId, () => { if (this.map.vertex(clusterId)?.kind === 'remoteCluster') this.map.removeCluster(clusterId); });
  }

  setOffloads(deployment: string, offloads: readonly OffloadFacts[]): void {
    const before = this.offloads.get(deployment) ?? new Map<string, string>();
    const now = new Map(offloads.map((o) => [`${deployment}/${o.component}`, o.cluster]));
    for (const key of before.keys()) if (!now.has(key)) this.guard(key, () => { this.map.removeComponent(key); });
    for (const o of offloads) {
      const key = `${deployment}/${o.component}`;
      this.guard(key, () => {
        this.map.upsertComponent(key, dropUndefined({ phase: o.phase, cluster: o.cluster, endpoint: o.endpoint }));
        // a component moved to another cluster leaves the link to the first
        const stale: string[] = [];
        this.map.forEachNeighbour(key, (other) => { if (other !== o.cluster) stale.push(other); });
        for (const other of stale) this.map.unlink(key, other);
        if (this.map.vertex(o.cluster)?.kind === 'remoteCluster') this.map.link(key, o.cluster, 'Offload');
      });
    }
    if (now.size > 0) this.offloads.set(deployment, now);
    else this.offloads.delete(deployment);
  }

  /** A device's links: those it has in the map that it no longer asks for go; the rest are made or wait. */
  private relinkDevice(key: string, links: WantedLink[]): void {
    const before: string[] = [];
    this.map.forEachNeighbour(key, (other) => { before.push(other); });
    for (const other of before) if (!links.some((l) => l.a === other)) this.map.unlink(other, key);
    this.tryLinks(links);
    this.keepWaiting(key, links);
  }

  private keepWaiting(device: string, links: readonly WantedLink[]): void {
    const left = links.filter((l) => !this.map.has(l.a));
    if (left.length > 0) this.waiting.set(device, left);
    else this.waiting.delete(device);
  }

  private relink(owner: string, links: WantedLink[]): void {
    const before = this.wanted.get(owner) ?? [];
    for (const old of before) {
      if (!links.some((l) => l.a === old.a && l.b === old.b)) this.map.unlink(old.a, old.b);
    }
    this.wanted.set(owner, links);
    this.tryLinks(links);
  }

  private tryLinks(links: readonly WantedLink[]): void {
    for (const l of links) {
      if (this.map.has(l.a) && this.map.has(l.b)) this.map.link(l.a, l.b, l.type, dropUndefined(l.attributes));
    }
  }

  /** A value the map refuses is logged; it never stops reconciliation. */
  private guard(key: string, update: () => void): void {
    try {
      update();
    } catch (err) {
      this.logger.warn({ key, err: errorMessage(err) }, 'edgeMap refused an update');
    }
  }
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
