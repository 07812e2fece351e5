// Counters of the bus, one set per registry (a component may run several bus clients: agent,
// relay links, all counting into the same set); invalid messages are dropped and counted here,
// never thrown. Written with shared/prometheus.ts, so they land on the controller's /metrics.
import { Counter, Gauge, type Registry } from '../prometheus.ts';

export interface BusMetrics {
  readonly received: Counter<'kind'>;
  readonly published: Counter<'kind'>;
  readonly dropped: Counter<'reason'>;
  readonly connected: Gauge<'link'>;
  readonly reconnects: Counter<'link'>;
  readonly limited: Counter<'neighbour' | 'kind'>;
}

const ofRegistry = new WeakMap<Registry, BusMetrics>();

/** The bus metrics on `registry`, made once: a federation that restarts (a new leader term) counts on. */
export function busMetrics(registry: Registry): BusMetrics {
  const known = ofRegistry.get(registry);
  if (known !== undefined) return known;
  const made: BusMetrics = {
    received: new Counter({ name: 'edgeshifu_bus_messages_received_total', help: 'Messages accepted after validation and de-duplication.', labelNames: ['kind'], registers: [registry] }),
    published: new Counter({ name: 'edgeshifu_bus_messages_published_total', help: 'Messages published (relayed ones included).', labelNames: ['kind'], registers: [registry] }),
    dropped: new Counter({ name: 'edgeshifu_bus_messages_dropped_total', help: 'Messages dropped on receipt, by reason (invalid, not-json, duplicate, ...).', labelNames: ['reason'], registers: [registry] }),
    connected: new Gauge({ name: 'edgeshifu_bus_connected', help: '1 while the link to its broker is up.', labelNames: ['link'], registers: [registry] }),
    limited: new Counter({ name: 'edgeshifu_bus_messages_limited_total', help: 'Messages dropped by the rate limit, by the neighbour that published them and kind.', labelNames: ['neighbour', 'kind'], registers: [registry] }),
    reconnects: new Counter({ name: 'edgeshifu_bus_reconnects_total', help: 'Reconnection attempts.', labelNames: ['link'], registers: [registry] }),
  };
  ofRegistry.set(registry, made);
  return made;
}
