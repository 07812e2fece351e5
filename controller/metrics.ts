// The controller's Prometheus registry: shared/prometheus.ts rather than prom-client (~4 MB of RSS
// less; the scrape reads the same), the component label on every sample, and the process metrics.
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { CollectedGauge, Registry, registerProcessMetrics } from '../shared/prometheus.ts';

/** V8's young generation; every other space but the read-only one counts against --max-old-space-size. */
const YOUNG = new Set(['new_space', 'new_large_object_space', 'read_only_space']);

/** Bytes used and committed by V8's old generation (read at scrape time only: a few microseconds). */
export function oldGeneration(): { used: number; size: number } {
  let used = 0;
  let size = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (YOUNG.has(space.space_name)) continue;
    used += space.space_used_size;
    size += space.space_size;
  }
  return { used, size };
}

export function controllerRegistry(): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ component: 'controller' });
  registerProcessMetrics(registry, 'edgeshifu_');
  // the live heap against the old-space cap the manifest sets (controller/README.md, "Footprint")
  const registers = [registry];
  new CollectedGauge({ name: 'edgeshifu_nodejs_old_generation_used_bytes', help: 'Bytes V8 holds in its old generation (every space but the young and read-only ones).', read: () => oldGeneration().used, registers });
  new CollectedGauge({ name: 'edgeshifu_nodejs_old_generation_size_bytes', help: 'Bytes V8 has committed to its old generation.', read: () => oldGeneration().size, registers });
  new CollectedGauge({ name: 'edgeshifu_nodejs_heap_size_limit_bytes', help: 'V8\'s heap size limit: --max-old-space-size plus the young generation.', read: () => getHeapStatistics().heap_size_limit, registers });
  return registry;
}
