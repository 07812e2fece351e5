// Reclaim (DRONE v2's preemption: reclaim from clusters above their share when local demand
// returns): when what the federation is offered shrinks below what is hosted, evict from
// the origins most above their deserved share, newest hosted component first. A slice that counts
// pods reclaims pods too: when the node's own pods come back, hosted ones give way.
import { fits, subtract, sum, type Resources } from '../model.ts';
import { proportion } from './proportion.ts';

export interface HostedComponent {
  readonly origin: string;
  readonly app: string;
  readonly component: string;
  readonly resources: Resources;
  /** When the host accepted it (ms); the newest goes first. */
  readonly acceptedAt: number;
}

/** How far above its share an origin is, in the resource where it is most above (pods too when the slice counts them). */
function overuse(hosted: Resources, deserved: Resources, offered: Resources): number {
  const cpu = offered.cpu > 0 ? (hosted.cpu - deserved.cpu) / offered.cpu : hosted.cpu;
  const memory = offered.memory > 0 ? (hosted.memory - deserved.memory) / offered.memory : hosted.memory;
  if (offered.pods === undefined) return Math.max(cpu, memory);
  const used = hosted.pods ?? 0;
  const pods = offered.pods > 0 ? (used - (deserved.pods ?? 0)) / offered.pods : used;
  return Math.max(cpu, memory, pods);
}

/** The hosted components to give back so that what stays fits in `offered`. */
export function reclaim(hosted: readonly HostedComponent[], offered: Resources, weights: ReadonlyMap<string, number>): HostedComponent[] {
  let kept = [...hosted];
  const victims: HostedComponent[] = [];
  while (kept.length > 0 && !fits(sum(kept.map((h) => h.resources)), offered)) {
    const byOrigin = new Map<string, HostedComponent[]>();
    for (const h of kept) byOrigin.set(h.origin, [...(byOrigin.get(h.origin) ?? []), h]);
    const requests = [...byOrigin].map(([cluster, items]) => ({ cluster, weight: weights.get(cluster) ?? 1, request: sum(items.map((i) => i.resources)) }));
    const deserved = proportion(offered, requests);
    const ranked = requests
      .map((r) => ({ cluster: r.cluster, over: overuse(r.request, deserved.get(r.cluster) ?? r.request, offered) }))
      .sort((a, b) => b.over - a.over || a.cluster.localeCompare(b.cluster));
    const origin = ranked[0]?.cluster ?? '';
    const candidates = (byOrigin.get(origin) ?? []).sort((a, b) => b.acceptedAt - a.acceptedAt || a.component.localeCompare(b.component));
    const victim = candidates[0];
    if (victim === undefined) break;
    victims.push(victim);
    kept = kept.filter((h) => h !== victim);
  }
  return victims;
}

/** What is left of `offered` once `hosted` is taken out. */
export function unhosted(offered: Resources, hosted: readonly HostedComponent[]): Resources {
  return subtract(offered, sum(hosted.map((h) => h.resources)));
}
