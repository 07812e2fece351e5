// deviceShifu's Prometheus metrics, owned by one gateway instance (no global registry). On the
// small exposition of shared/prometheus.ts rather than prom-client: deviceShifu has 50 MB.
import { Counter, Histogram, Registry, registerProcessMetrics } from '../shared/prometheus.ts';

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'instruction' | 'method' | 'status'>;
  readonly deviceLatency: Histogram<'instruction' | 'outcome'>;
  readonly telemetry: Counter<'telemetry' | 'result'>;
  readonly telemetryPush: Counter<'telemetry' | 'result'>;
  readonly statusWrites: Counter<'result'>;
  readonly configReloads: Counter<'source' | 'result'>;

  constructor() {
    this.registry.setDefaultLabels({ component: 'deviceshifu' });
    registerProcessMetrics(this.registry, 'edgeshifu_');
    const registers = [this.registry];
    this.requests = new Counter({ name: 'edgeshifu_deviceshifu_requests_total', help: 'North-bound requests by instruction and HTTP status.', labelNames: ['instruction', 'method', 'status'], registers });
    this.deviceLatency = new Histogram({
      name: 'edgeshifu_deviceshifu_device_latency_seconds', help: 'Time until the device answered (or failed), by instruction.',
      labelNames: ['instruction', 'outcome'], registers, buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
    this.telemetry = new Counter({ name: 'edgeshifu_deviceshifu_telemetry_results_total', help: 'Telemetry polls by result (ok, error).', labelNames: ['telemetry', 'result'], registers });
    this.telemetryPush = new Counter({ name: 'edgeshifu_deviceshifu_telemetry_push_total', help: 'Telemetry pushes by result (ok, error).', labelNames: ['telemetry', 'result'], registers });
    this.statusWrites = new Counter({ name: 'edgeshifu_deviceshifu_status_writes_total', help: 'EdgeDevice status patches by result.', labelNames: ['result'], registers });
    this.configReloads = new Counter({ name: 'edgeshifu_deviceshifu_config_reloads_total', help: 'Configuration reloads by source (configmap, edgedevice) and result.', labelNames: ['source', 'result'], registers });
  }
}
