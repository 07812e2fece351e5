// Prometheus metrics: one registry per component instance (no global registry, so several
// instances can live in one test process), with the process metrics every operator expects.
import { Registry, collectDefaultMetrics } from 'prom-client';

export function createRegistry(component: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ component });
  collectDefaultMetrics({ register: registry, prefix: 'edgeshifu_' });
  return registry;
}
