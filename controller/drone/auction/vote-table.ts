// The vote table of one app: per (component, cluster) the newest vote wins the
// merge; the winner of a component is the highest positive vote, ties to the older timestamp,
// then to the smaller cluster id, so every agent with the same table picks the same winner.
import type { VoteEntry } from '../messages/votes.ts';

export interface Vote {
  readonly cluster: string;
  readonly value: number;
  readonly timestamp: number;
}

/** Whether `a` beats `b` for the same component. */
export function beats(a: Vote, b: Vote): boolean {
  if (a.value !== b.value) return a.value > b.value;
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp;
  return a.cluster < b.cluster;
}

export class VoteTable {
  private readonly votes = new Map<string, Map<string, Vote>>();

  /** Records a vote if it is newer than what the table holds for that (component, cluster); true when it changed. */
  put(component: string, vote: Vote): boolean {
    let byCluster = this.votes.get(component);
    if (byCluster === undefined) {
      byCluster = new Map();
      this.votes.set(component, byCluster);
    }
    const held = byCluster.get(vote.cluster);
    if (held !== undefined && held.timestamp >= vote.timestamp) return false;
    byCluster.set(vote.cluster, vote);
    return true;
  }

  /** Records this cluster's own vote: only it speaks for itself, so the latest statement always stands. */
  own(component: string, vote: Vote): void {
    let byCluster = this.votes.get(component);
    if (byCluster === undefined) {
      byCluster = new Map();
      this.votes.set(component, byCluster);
    }
    byCluster.set(vote.cluster, vote);
  }

  /** Merges a peer's view, never overwriting `self`'s own entries (only self speaks for self). */
  merge(entries: readonly VoteEntry[], self: string): boolean {
    let changed = false;
    for (const e of entries) {
      if (e.cluster === self) continue;
      changed = this.put(e.component, { cluster: e.cluster, value: e.value, timestamp: e.timestamp }) || changed;
    }
    return changed;
  }

  get(component: string, cluster: string): Vote | undefined {
    return this.votes.get(component)?.get(cluster);
  }

  /** Positive votes for a component, best first. */
  ranked(component: string): Vote[] {
    return [...(this.votes.get(component)?.values() ?? [])].filter((v) => v.value > 0).sort((a, b) => (beats(a, b) ? -1 : beats(b, a) ? 1 : 0));
  }

  winner(component: string): Vote | undefined {
    return this.ranked(component)[0];
  }

  /** component -> winning cluster, for components that have one. */
  winners(components: readonly string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const c of components) {
      const w = this.winner(c);
      if (w !== undefined) out[c] = w.cluster;
    }
    return out;
  }

  /**
   * What `self` broadcasts: its own entries and each component's winning entry. Every cluster
   * speaks for itself on the same broadcast, so the rest of the table would only repeat what its
   * authors send, and make each votes message grow with the federation.
   */
  spoken(self: string): VoteEntry[] {
    const out: VoteEntry[] = [];
    for (const [component, byCluster] of this.votes) {
      const own = byCluster.get(self);
      if (own !== undefined) out.push({ component, cluster: self, value: own.value, timestamp: own.timestamp });
      const top = this.winner(component);
      if (top !== undefined && top.cluster !== self) out.push({ component, cluster: top.cluster, value: top.value, timestamp: top.timestamp });
    }
    return out;
  }
}

export function sameWinners(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
