// Devices whose deviceShifu runs on a node: what the controller reschedules when the node becomes
// unavailable (controller/README.md, "Rescheduling").
import type { EdgeMapView } from '../view.ts';
import { compareKeys } from './order.ts';
import { requireVertex } from './require.ts';

/** Device keys placed on `node` (attribute nodeName), sorted. The node must be an edgeNode in the map. */
export function devicesServedBy(map: EdgeMapView, node: string): string[] {
  requireVertex(map, node, 'devicesServedBy', 'edgeNode');
  return [...map.devicesPlacedOn(node)].sort(compareKeys);
}
