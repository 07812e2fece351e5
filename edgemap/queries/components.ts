// Connected components: more than one means the site is partitioned (a switch or uplink is down).
import type { EdgeMapView } from '../view.ts';
import { compareKeys } from './order.ts';

/** Each component's keys sorted; components ordered by size (largest first), then first key. */
export function connectedComponents(map: EdgeMapView): string[][] {
  const seen = new Set<string>();
  const components: string[][] = [];
  map.forEachVertex(({ key }) => {
    if (seen.has(key)) return;
    seen.add(key);
    const component = [key];
    for (let i = 0; i < component.length; i++) {
      map.forEachNeighbour(component[i] as string, (neighbour) => {
        if (seen.has(neighbour)) return;
        seen.add(neighbour);
        component.push(neighbour);
      });
    }
    components.push(component.sort(compareKeys));
  });
  return components.sort((a, b) => b.length - a.length || compareKeys(a[0] as string, b[0] as string));
}
