// fedSlices (DRONE v2 "Slices advertisement", step 4): the slices peers advertised, each kept
// until its ttl runs out, so a cluster that vanished stops being counted on and offered work.
import type { SliceAdvertMessage } from './messages/slice-advert.ts';
import { isZero, type Resources } from './model.ts';

export interface FedSlice {
  readonly cluster: string;
  readonly offered: Resources;
  readonly seq: number;
  readonly expiresAt: number;
}

export class FedSlices {
  private readonly slices = new Map<string, FedSlice>();

  /** Keeps the advert unless an equal or newer one from that cluster is held; true when it changed what is known. */
  update(advert: Pick<SliceAdvertMessage, 'sender' | 'offered' | 'seq' | 'ttlMs'>, now: number): boolean {
    const held = this.slices.get(advert.sender);
    if (held !== undefined && held.seq > advert.seq) return false;
    if (held !== undefined && held.seq === advert.seq) return false;
    this.slices.set(advert.sender, { cluster: advert.sender, offered: advert.offered, seq: advert.seq, expiresAt: now + advert.ttlMs });
    return true;
  }

  get(cluster: string, now: number): FedSlice | undefined {
    const slice = this.slices.get(cluster);
    return slice !== undefined && slice.expiresAt > now ? slice : undefined;
  }

  /** Peers whose advert is live and offers something, sorted. */
  providers(now: number): string[] {
    return [...this.slices.values()].filter((s) => s.expiresAt > now && !isZero(s.offered)).map((s) => s.cluster).sort();
  }

  /** Forgets expired adverts, returning who vanished. */
  expire(now: number): string[] {
    const gone = [...this.slices.values()].filter((s) => s.expiresAt <= now).map((s) => s.cluster);
    for (const c of gone) this.slices.delete(c);
    return gone;
  }

  nextExpiry(): number | undefined {
    const times = [...this.slices.values()].map((s) => s.expiresAt);
    return times.length === 0 ? undefined : Math.min(...times);
  }
}
