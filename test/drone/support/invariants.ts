// What must hold in any federation at any time: no component hosted by two clusters,
// no cluster hosting beyond its slice or what it has free; and at the end, every job placed or
// failed with a reason, placed jobs hosted where the origin says.
import type { SimFederation } from './network.ts';

export interface Capacity { readonly free: { cpu: number; memory: number }; readonly scalePercent: number }

const EPS = 1e-6;

export function checkSafety(fed: SimFederation, capacity: ReadonlyMap<string, Capacity>): string | undefined {
  const holders = new Map<string, string[]>();
  for (const [id, agent] of fed.agents) {
    const hosted = agent.hosted();
    for (const h of hosted) {
      const key = `${h.origin}/${h.app}/${h.component}`;
      holders.set(key, [...(holders.get(key) ?? []), id]);
    }
    const cap = capacity.get(id);
    if (cap === undefined) continue;
    const all = hosted.reduce((s, h) => ({ cpu: s.cpu + h.resources.cpu, memory: s.memory + h.resources.memory }), { cpu: 0, memory: 0 });
    const foreign = hosted.filter((h) => h.origin !== id).reduce((s, h) => ({ cpu: s.cpu + h.resources.cpu, memory: s.memory + h.resources.memory }), { cpu: 0, memory: 0 });
    const slice = { cpu: (cap.free.cpu * cap.scalePercent) / 100, memory: (cap.free.memory * cap.scalePercent) / 100 };
    if (foreign.cpu > slice.cpu + EPS || foreign.memory > slice.memory + EPS) return `${id} hosts ${JSON.stringify(foreign)} for others, beyond its slice ${JSON.stringify(slice)}`;
    if (all.cpu > cap.free.cpu + EPS || all.memory > cap.free.memory + EPS) return `${id} hosts ${JSON.stringify(all)}, beyond what it has free ${JSON.stringify(cap.free)}`;
  }
  for (const [key, ids] of holders) if (ids.length > 1) return `${key} is hosted by ${ids.join(' and ')}`;
  return undefined;
}

export function checkOutcomes(fed: SimFederation, jobs: ReadonlyArray<{ origin: string; app: string; components: ReadonlyArray<{ name: string }> }>): string | undefined {
  const outcomes = fed.outcomes();
  for (const job of jobs) {
    const key = `${job.origin}/${job.app}`;
    const events = outcomes.get(key) ?? [];
    if (events.length !== 1) return `${key} has ${events.length} outcomes: ${JSON.stringify(events)}`;
    const [event] = events;
    if (event?.type === 'failed' && event.reason.trim() === '') return `${key} failed without a reason`;
    if (event?.type !== 'placed') continue;
    for (const c of job.components) {
      const host = event.placement[c.name];
      if (host === undefined) return `${key} placed without ${c.name}`;
      if (!fed.agent(host).hosted().some((h) => h.origin === job.origin && h.app === job.app && h.component === c.name)) return `${key}/${c.name} placed on ${host}, which does not host it`;
    }
  }
  return undefined;
}
