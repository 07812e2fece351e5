// Reclaim's invariant, for the tests: each placed component is held by the cluster its origin's
// placement names, and (outside a move, whose two hosts both hold it a few messages long) by it alone.
import type { SimFederation } from './network.ts';

/** Why `apps` break it (`during`: a second holder is allowed), or undefined. */
export function placedOnce(fed: SimFederation, apps: ReadonlyArray<readonly [string, string]>, during = false): string | undefined {
  for (const [origin, app] of apps) {
    const placement = fed.agent(origin).placement(app) ?? {};
    for (const [component, at] of Object.entries(placement)) {
      const holders = [...fed.agents].filter(([, a]) => a.hosted().some((h) => h.origin === origin && h.app === app && h.component === component)).map(([id]) => id);
      if (!holders.includes(at)) return `${origin}/${app}/${component} placed on ${at}, held by ${holders.join(', ') || 'nobody'}`;
      if (!during && holders.length !== 1) return `${origin}/${app}/${component} held by ${holders.join(' and ')}`;
    }
  }
  return undefined;
}
