// The edgeNode with the least summed link latency from a device (Dijkstra). A link whose latency
// is not measured counts `unmeasuredLatencyMs` (default 1 ms: a LAN hop). Ties go to fewer hops,
// then to the smaller node name.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { EdgeMapView } from '../view.ts';
import { MinHeap } from './heap.ts';
import { compareKeys } from './order.ts';
import { crossable, isAnswer, type PathQueryOptions } from './paths.ts';
import { requireFilter, requireVertex } from './require.ts';

export interface LatencyQueryOptions extends PathQueryOptions {
  readonly unmeasuredLatencyMs?: number;
}

export interface NodeByLatency {
  readonly node: string;
  readonly latencyMs: number;
  readonly hops: number;
}

interface Reached { readonly key: string; readonly latencyMs: number; readonly hops: number }

function before(a: Reached, b: Reached): boolean {
  return a.latencyMs !== b.latencyMs ? a.latencyMs < b.latencyMs : a.hops !== b.hops ? a.hops < b.hops : compareKeys(a.key, b.key) < 0;
}

function unmeasured(value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  throw new EdgeshifuError('invalid', 'edgeMap closestNodeByLatency: options.unmeasuredLatencyMs must be a finite number >= 0');
}

/** Undefined when no eligible edgeNode is reachable from the device. */
export function closestNodeByLatency(map: EdgeMapView, deviceKey: string, options: LatencyQueryOptions = {}): NodeByLatency | undefined {
  requireVertex(map, deviceKey, 'closestNodeByLatency', 'edgeDevice');
  const eligible = requireFilter(options.eligible, 'closestNodeByLatency');
  const defaultMs = unmeasured(options.unmeasuredLatencyMs);
  const settled = new Set<string>();
  const queue = new MinHeap<Reached>(before);
  queue.push({ key: deviceKey, latencyMs: 0, hops: 0 });
  for (let at = queue.pop(); at !== undefined; at = queue.pop()) {
    if (settled.has(at.key)) continue;
    settled.add(at.key);
    if (at.hops > 0 && isAnswer(map, at.key, eligible)) return { node: at.key, latencyMs: at.latencyMs, hops: at.hops };
    const from = at;
    map.forEachNeighbour(from.key, (neighbour, link) => {
      if (settled.has(neighbour) || !crossable(map, neighbour)) return;
      queue.push({ key: neighbour, latencyMs: from.latencyMs + (link.latencyMs ?? defaultMs), hops: from.hops + 1 });
    });
  }
  return undefined;
}
