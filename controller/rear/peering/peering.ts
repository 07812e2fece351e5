// REAR's peering on the consumer (controller/rear/README.md, "Peering as a virtual node"): one
// object that starts the virtual nodes' and the carried pods' reconcilers, given the consumer's
// client, its REAR bus client and settings; the Services' EndpointSlices to carried pods, and
// their logs on request (log-relay.ts). The provider's side is PeeringHost (peering-host.ts).
import type { V1EndpointSlice, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import { agentFilters } from '../../../shared/bus/topics.ts';
import { EdgeshifuError } from '../../../shared/errors.ts';
import type { BusClient } from '../../../shared/bus/client.ts';
import type { KubeClient } from '../../../shared/kube/client.ts';
import { objectKey, type Informer } from '../../../shared/kube/informer.ts';
import type { Logger } from '../../../shared/log.ts';
import type { Registry } from '../../../shared/prometheus.ts';
import { GROUP, VERSION } from '../../../shared/crds/resources.ts';
import { Runner } from '../../runner.ts';
import type { RearMessage } from '../messages/index.ts';
import type { LogOptions } from '../messages/pod-log-request.ts';
import { SERVICE_NAME_LABEL, SLICE_MANAGED_BY, SLICE_MANAGER } from './carried-service.ts';
import { PodLogClient } from './log-relay.ts';
import { ServiceReconciler, SLICES } from './service-reconciler.ts';
import { collectionInformer, PeeringApi } from './kube.ts';
import { NodeReconciler, type NodeReconcilerDeps } from './node-reconciler.ts';
import { PodReconciler } from './pod-reconciler.ts';
import { CONTRACT_ANNOTATION, LABELS, type ContractResource } from './virtual-node.ts';
import { BUYER_LABEL } from '../buyer-records.ts';

export interface PeeringSettings {
  /** This cluster's id on the federation bus (the buyer in its contracts). */
  readonly cluster: string;
  readonly workers?: number;
  /** How often a carried pod is sent again (15 s). */
  readonly resendMs?: number;
  /** How long a pod of an ended contract waits for the provider before it is removed here (10 s). */
  readonly endGraceMs?: number;
  /** How long a log request waits for the provider's answer (10 s). */
  readonly replyTimeoutMs?: number;
}

export interface PeeringDeps {
  readonly client: KubeClient;
  readonly bus: BusClient<RearMessage>;
  readonly settings: PeeringSettings;
  readonly logger: Logger;
  readonly registry: Registry;
  /** Told each new phase of a contract's Allocation. */
  readonly allocated?: NodeReconcilerDeps['allocated'];
}

export class Peering {
  readonly contracts: Informer<ContractResource>;
  readonly nodes: Informer<V1Node>;
  readonly pods: Informer<V1Pod>;
  readonly nodeReconciler: NodeReconciler;
  readonly podReconciler: PodReconciler;
  readonly services: Informer<V1Service>;
  readonly slices: Informer<V1EndpointSlice>;
  readonly serviceReconciler: ServiceReconciler;
  private readonly logClient: PodLogClient;
  private readonly nodeRunner: Runner;
  private readonly podRunner: Runner;
  private readonly serviceRunner: Runner;

  private readonly deps: PeeringDeps;

  constructor(deps: PeeringDeps) {
    this.deps = deps;
    const { client, logger, settings } = deps;
    const api = new PeeringApi(client);
    // only what this cluster bought: a seller keeps its sales as Contract resources too
    this.contracts = collectionInformer<ContractResource>(client, logger, `/apis/${GROUP}/${VERSION}/contracts`, `${BUYER_LABEL}=${settings.cluster}`);
    this.nodes = collectionInformer<V1Node>(client, logger, '/api/v1/nodes', LABELS.contract);
    this.pods = collectionInformer<V1Pod>(client, logger, '/api/v1/pods');
    this.podReconciler = new PodReconciler({
      api, bus: deps.bus, cluster: settings.cluster, pods: this.pods, nodes: this.nodes, contracts: this.contracts, logger,
      ...(settings.resendMs === undefined ? {} : { resendMs: settings.resendMs }), ...(settings.endGraceMs === undefined ? {} : { endGraceMs: settings.endGraceMs }),
      reached: (namespace) => { this.servicesIn(namespace); },
    });
    this.services = collectionInformer<V1Service>(client, logger, '/api/v1/services');
    this.slices = collectionInformer<V1EndpointSlice>(client, logger, `${SLICES}/endpointslices`, `${SLICE_MANAGED_BY}=${SLICE_MANAGER}`);
    this.serviceReconciler = new ServiceReconciler({ api, services: this.services, slices: this.slices, carried: (ns) => this.podReconciler.carriedIn(ns), logger });
    this.logClient = new PodLogClient({ bus: deps.bus, cluster: settings.cluster, logger, ...(settings.replyTimeoutMs === undefined ? {} : { replyTimeoutMs: settings.replyTimeoutMs }) });
    this.nodeReconciler = new NodeReconciler({ api, contracts: this.contracts, nodes: this.nodes, podsOn: (node) => this.podReconciler.podsOn(node), ...(deps.allocated === undefined ? {} : { allocated: deps.allocated }) });
    const workers = settings.workers ?? 2;
    this.nodeRunner = new Runner({ name: 'rear-virtual-node', reconcile: this.nodeReconciler.reconcile, workers, logger, registry: deps.registry });
    this.podRunner = new Runner({ name: 'rear-carried-pod', reconcile: this.podReconciler.reconcile, workers, logger, registry: deps.registry });
    this.serviceRunner = new Runner({ name: 'rear-carried-service', reconcile: this.serviceReconciler.reconcile, workers, logger, registry: deps.registry });
    this.podReconciler.enqueue = (key) => { this.podRunner.queue.add(key); };
  }

  /** Every Service of a namespace that may select carried pods is reconciled again. */
  private servicesIn(namespace: string): void {
    for (const key of this.serviceReconciler.servicesIn(namespace)) this.serviceRunner.queue.add(key);
  }

  /** A carried pod's log, read by its provider (controller/rear/README.md, "Logs on request"). */
  async logs(namespace: string, name: string, options: LogOptions): Promise<{ log: string; truncated: boolean }> {
    const carried = this.podReconciler.carriage(`${namespace}/${name}`);
    if (carried === undefined) throw new EdgeshifuError('not-found', `pod ${namespace}/${name} is not carried to a provider (it is on no virtual node, or not yet): read its log with kubectl logs`);
    return this.logClient.logs(carried, options);
  }

  async start(): Promise<void> {
    for (const event of ['add', 'update', 'delete'] as const) {
      this.contracts.on(event, (c) => { this.nodeRunner.queue.add(objectKey(c)); });
      this.nodes.on(event, (n) => {
        const ref = n.metadata?.annotations?.[CONTRACT_ANNOTATION];
        if (ref !== undefined && event !== 'update') this.nodeRunner.queue.add(ref);
      });
      this.pods.on(event, (p, key) => {
        if (!this.podReconciler.concerns(p)) return;
        this.podRunner.queue.add(key);
        // a pod leaving a draining node lets the node go
        const ref = this.nodes.get(p.spec?.nodeName ?? '')?.metadata?.annotations?.[CONTRACT_ANNOTATION];
        if (event === 'delete' && ref !== undefined) this.nodeRunner.queue.add(ref);
        this.servicesIn(p.metadata?.namespace ?? '');
      });
      this.services.on(event, (_s, key) => { this.serviceRunner.queue.add(key); });
      this.slices.on(event, (s) => {
        const service = s.metadata?.labels?.[SERVICE_NAME_LABEL];
        if (service !== undefined && event !== 'add') this.serviceRunner.queue.add(`${s.metadata?.namespace ?? ''}/${service}`);
      });
    }
    await Promise.all([this.contracts.start(), this.nodes.start(), this.pods.start(), this.services.start(), this.slices.start()]);
    await this.podReconciler.start();
    await this.deps.bus.subscribe(agentFilters(this.deps.settings.cluster), (m) => { if (m.kind === 'rear-pod-log') this.logClient.heard(m); });
    this.nodeRunner.start();
    this.podRunner.start();
    this.serviceRunner.start();
    for (const s of this.services.list()) this.serviceRunner.queue.add(objectKey(s));
    for (const c of this.contracts.list()) this.nodeRunner.queue.add(objectKey(c));
    // a node whose contract went while this controller was down is drained too
    for (const n of this.nodes.list()) {
      const ref = n.metadata?.annotations?.[CONTRACT_ANNOTATION];
      if (ref !== undefined) this.nodeRunner.queue.add(ref);
    }
    for (const p of this.pods.list()) if (this.podReconciler.concerns(p)) this.podRunner.queue.add(objectKey(p));
  }

  async stop(): Promise<void> {
    await this.nodeRunner.stop();
    await this.podRunner.stop();
    await this.serviceRunner.stop();
    await Promise.all([this.contracts.stop(), this.nodes.stop(), this.pods.stop(), this.services.stop(), this.slices.stop()]);
  }
}
