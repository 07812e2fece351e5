// fedSlices (DRONE v2 "Slices advertisement", step 4): the slices peers advertised, each kept
// until its ttl runs out, so a cluster that vanished stops being counted on and offered work.
import type { SliceAdvertMessage } from './messages/slice-advert.ts';
import { isEmpty, type Resources } from './model.ts';

export interface FedSlice {
  readonly cluster: string;
  readonly offered: Resources;
  readonly seq: number;
  readonly expiresAt: number;
  /** Relays the advert crossed on its way here: how far the provider is (an origin prefers the nearer of equal offers). */
  readonly hops: number;
}

export class FedSlices {
  private readonly slices = new Map<string, FedSlice>();
  /** The earliest expiry, kept between adverts: the agent asks for it after every message it handles. */
  private earliest?: number;

  /** Keeps the advert unless an equal or newer one from that cluster is held; true when it changed what is known. */
  update(advert: Pick<SliceAdvertMessage, 'sender' | 'offered' | 'seq' | 'ttlMs'> & { readonly hops?: number }, now: number): boolean {
    const held = this.slices.get(advert.sender);
    if (held !== undefined && held.seq > advert.seq) return false;
    if (held !== undefined && held.seq === advert.seq) return false;
    delete this.earliest;
    this.slices.set(advert.sender, { cluster: advert.sender, offered: advert.offered, seq: advert.seq, expiresAt: now + advert.ttlMs, hops: advert.hops ?? 0 });
    return true;
  }

  get(cluster: string, now: number): FedSlice | undefined {
    const slice = this.slices.get(cluster);
    return slice !== undefined && slice.expiresAt > now ? slice : undefined;
  }

  /** Peers whose advert is live and offers something (cpu or memory, and a pod when it counts them), sorted. */
  providers(now: number): string[] {
    return [...this.slices.values()].filter((s) => s.expiresAt > now && !isEmpty(s.offered)).map((s) => s.cluster).sort();
  }

  /** Peers with a live advert, whether or not it offers anything now (a full cluster may still hold what could move), sorted. */
  members(now: number): string[] {
    return [...this.slices.values()].filter((s) => s.expiresAt > now).map((s) => s.cluster).sort();
  }

  /** Live slices that offer something (as `providers`), by cluster id. */
  live(now: number): FedSlice[] {
    return [...this.slices.values()].filter((s) => s.expiresAt > now && !isEmpty(s.offered)).sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  }

  /** Forgets expired adverts, returning who vanished. */
  expire(now: number): string[] {
    const gone = [...this.slices.values()].filter((s) => s.expiresAt <= now).map((s) => s.cluster);
    for (const c of gone) this.slices.delete(c);
    if (gone.length > 0) delete this.earliest;
    return gone;
  }

  nextExpiry(): number | undefined {
    if (this.slices.size === 0) return undefined;
    if (this.earliest === undefined) {
      let min = Number.POSITIVE_INFINITY;
      for (const s of this.slices.values()) min = Math.min(min, s.expiresAt);
      this.earliest = min;
    }
    return this.earliest;
  }
}
