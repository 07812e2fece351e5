// The controller's Prometheus registry: shared/prometheus.ts rather than prom-client (~4 MB of RSS
// less; the scrape reads the same), the component label on every sample, and the process metrics.
import { Registry, registerProcessMetrics } from '../shared/prometheus.ts';

export function controllerRegistry(): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ component: 'controller' });
  registerProcessMetrics(registry, 'edgeshifu_');
  return registry;
}
