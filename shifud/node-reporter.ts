// Keeps this node's EdgeNode registered and its status current: each sample goes through
// shouldWrite, and only a meaningful change or the heartbeat reaches the API server.
import { isEdgeshifuError } from '../shared/errors.ts';
import type { Lwm2mEndpointSeen } from '../shared/crds/lwm2m-status.ts';
import type { Logger } from '../shared/log.ts';
import type { ApiGate } from './api-gate.ts';
import type { EdgeNodeClient } from './kube-clients.ts';
import { devicesKey, edgeNodeFor, nodeStatusApply, opcuaKey, type EdgeNode, type OpcuaServerSeen, type SeenDevice } from './node-status.ts';
import type { NodeSample } from './sample.ts';
import { shouldWrite, type NodeReport, type Thresholds, type WriteReason, type Written } from './thresholds.ts';

export interface NodeReporterOptions {
  readonly nodeName: string;
  readonly client: EdgeNodeClient;
  readonly thresholds: Thresholds;
  readonly gate: ApiGate;
  readonly logger: Logger;
  /** The devices this node sees now (deviceUpdater). */
  readonly devices: () => readonly SeenDevice[];
  /** OPC UA discovery's servers, when it is on. */
  readonly opcuaServers?: () => readonly OpcuaServerSeen[];
  /** LwM2M clients registered with this node's deviceShifus (lwm2m-endpoints.ts). */
  readonly lwm2mEndpoints?: () => readonly Lwm2mEndpointSeen[];
  readonly now?: () => number;
}

export type ReportResult = { readonly wrote: true; readonly reason: WriteReason } | { readonly wrote: false; readonly why: 'unchanged' | 'backing-off' | 'failed' };

export interface Readiness {
  readonly ready: boolean;
  readonly reason: string;
  readonly message: string;
}

export const READY: Readiness = { ready: true, reason: 'Sampling', message: 'shifud samples this node and probes its devices' };

export class NodeReporter {
  private readonly options: NodeReporterOptions;
  private readonly now: () => number;
  private written: Written | undefined;
  private current: EdgeNode | undefined;
  /** Status writes that reached the API server (for metrics and tests). */
  readonly stats = { writes: 0, registrations: 0 };

  constructor(options: NodeReporterOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Reads the EdgeNode, creating it when missing. */
  async register(): Promise<EdgeNode> {
    const { client, nodeName, logger } = this.options;
    const existing = await client.get(nodeName);
    if (existing !== undefined) return existing;
    const created = await client.create(edgeNodeFor(nodeName));
    this.stats.registrations += 1;
    logger.info({ node: nodeName }, 'registered EdgeNode');
    return created;
  }

  async report(sample: NodeSample, readiness: Readiness = READY): Promise<ReportResult> {
    const { nodeName, thresholds, gate } = this.options;
    const devices = this.options.devices();
    const opcuaServers = this.options.opcuaServers?.();
    const lwm2mEndpoints = this.options.lwm2mEndpoints?.();
    // the OPC UA servers and LwM2M clients ride on the devices key: a change in any is worth a write
    const extra = (opcuaServers === undefined ? '' : `|${opcuaKey(opcuaServers)}`) + (lwm2mEndpoints === undefined ? '' : `|${JSON.stringify(lwm2mEndpoints)}`);
    const report: NodeReport = { sample, ready: readiness.ready, devicesKey: devicesKey(devices) + extra };
    const now = this.now();
    const decision = shouldWrite(this.written, report, thresholds, now);
    if (!decision.write) return { wrote: false, why: 'unchanged' };
    if (!gate.isOpen()) return { wrote: false, why: 'backing-off' };
    try {
      this.current ??= await this.register();
      const body = nodeStatusApply({ nodeName, sample, devices, ...(opcuaServers === undefined ? {} : { opcuaServers }), ...(lwm2mEndpoints === undefined ? {} : { lwm2mEndpoints }), now: new Date(now), current: this.current,
        ready: { status: readiness.ready, reason: readiness.reason, message: readiness.message } });
      this.current = await this.options.client.applyStatus(body);
      this.written = { ...report, at: now };
      this.stats.writes += 1;
      gate.succeeded();
      return { wrote: true, reason: decision.reason };
    } catch (err) {
      const error = gate.failed(err, `write EdgeNode ${nodeName} status`);
      // deleted under us: register again on the next write
      if (isEdgeshifuError(error, 'not-found')) {
        this.current = undefined;
        this.written = undefined;
      }
      return { wrote: false, why: 'failed' };
    }
  }
}
