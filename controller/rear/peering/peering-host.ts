// The provider's side of peering (thin shell): a pod the buyer bound to its virtual node arrives
// as a `rear-pod`, is authorised by a live contract of that buyer, checked as an offloaded
// component is (Pod Security at the buyer's Federation level, allowed images, the hosted
// template's fields, no token: controller/offload/admission.ts), and run in the namespace the
// contract names, fenced by a quota, limits and a network policy equal to the buyer's live
// contracts (controller/offload/hosted-namespace.ts). Its status goes back on every change; a pod
// deleted here by anyone else is reported lost; one whose contract ended is deleted. Each pod's
// declared ports get a NodePort Service (carried-service.ts), whose address goes back with its
// status; log requests are answered by log-relay.ts.
import type { KubernetesObject, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { BusClient } from '../../../shared/bus/client.ts';
import { agentFilters, directTopic } from '../../../shared/bus/topics.ts';
import type { KubeClient } from '../../../shared/kube/client.ts';
import { objectKey, type Informer } from '../../../shared/kube/informer.ts';
import { errorMessage } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/log.ts';
import { workloadRefusal, type HostingPolicy } from '../../offload/admission.ts';
import { hostedNamespaceObjects } from '../../offload/hosted-namespace.ts';
import { publicAddress } from '../../offload/host-plan.ts';
import { reachablePorts, type HostRequest } from '../../offload/objects.ts';
import type { Contract } from '../core/model.ts';
import { peeringNamespace } from '../core/provider.ts';
import type { PeerPodMessage, PeerPodStatusMessage, RearMessage } from '../messages/index.ts';
import { CARRIED_LABELS, consumerPodOf, carriedName, providerPod, workloadOfPod } from './pod-carry.ts';
import { exposureName, exposureService, openPorts } from './carried-service.ts';
import { collectionInformer, pathOf, PeeringApi } from './kube.ts';
import { PodLogServer } from './log-relay.ts';

export interface PeeringHostDeps {
  readonly client: KubeClient;
  readonly bus: BusClient<RearMessage>;
  readonly cluster: string;
  /** The seller's contracts (its Market's book). */
  readonly contracts: () => readonly Contract[];
  /** What this cluster runs for a neighbour (its Federation); undefined: nothing. */
  readonly policyOf: (buyer: string) => HostingPolicy | undefined;
  readonly clusterImages?: readonly string[];
  readonly logger: Logger;
  readonly clock?: () => number;
  /** How often contracts are checked for their end (1 s). */
  readonly sweepMs?: number;
  /** Where the buyer reaches this cluster's NodePorts; the first Ready node's InternalIP when absent. */
  readonly publicAddress?: string;
}

type StatusBody = Pick<PeerPodStatusMessage, 'contractId' | 'pod' | 'state'> & { status?: unknown; reason?: string; reach?: PeerPodStatusMessage['reach'] };

export class PeeringHost {
  private readonly deps: PeeringHostDeps;
  private readonly api: PeeringApi;
  readonly pods: Informer<V1Pod>;
  /** The carried pods' NodePort Services, and the nodes whose address the buyer reaches them at. */
  readonly services: Informer<V1Service>;
  readonly nodes: Informer<V1Node>;
  private readonly logs: PodLogServer;
  /** Carried pods (uid) whose Service was asked for, so it is asked for once. */
  private readonly exposed = new Set<string>();
  /** Pods this side deleted (asked by the buyer, or their contract ended): their deletion is not a loss. */
  private readonly deleting = new Set<string>();
  private readonly said = new Map<string, string>();
  private readonly written = new Map<string, string>();
  private readonly lanes = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;

  constructor(deps: PeeringHostDeps) {
    this.deps = deps;
    this.api = new PeeringApi(deps.client);
    this.pods = collectionInformer<V1Pod>(deps.client, deps.logger, '/api/v1/pods', CARRIED_LABELS.consumer);
    this.services = collectionInformer<V1Service>(deps.client, deps.logger, '/api/v1/services', CARRIED_LABELS.consumer);
    this.nodes = collectionInformer<V1Node>(deps.client, deps.logger, '/api/v1/nodes');
    this.logs = new PodLogServer({ client: deps.client, bus: deps.bus, cluster: deps.cluster, pods: this.pods, liveContract: (id, buyer) => this.liveContract(id, buyer), logger: deps.logger });
  }

  private now(): number { return (this.deps.clock ?? Date.now)(); }

  async start(): Promise<void> {
    this.pods.on('add', (p) => { this.report(p); });
    this.pods.on('update', (p) => { this.report(p); });
    this.pods.on('delete', (p) => { this.onDeleted(p); });
    // a Service given its node ports, or another node address, is said again to the buyer
    const exposedPod = (s: V1Service): void => {
      const pod = this.pods.list().find((p) => p.metadata?.uid !== undefined && s.metadata?.ownerReferences?.some((o) => o.uid === p.metadata?.uid) === true);
      if (pod !== undefined) this.report(pod);
    };
    this.services.on('add', exposedPod);
    this.services.on('update', exposedPod);
    this.nodes.on('update', () => { for (const p of this.pods.list()) this.report(p); });
    await Promise.all([this.services.start(), this.nodes.start()]);
    await this.pods.start();
    await this.deps.bus.subscribe(agentFilters(this.deps.cluster), (m) => {
      if (m.kind === 'rear-pod') this.inLane(`${m.sender}/${m.pod.namespace}/${m.pod.name}/${m.pod.uid}`, () => this.onPod(m));
      if (m.kind === 'rear-pod-log-request') void this.logs.answer(m);
    });
    this.timer = setInterval(() => { void this.sweep(); }, this.deps.sweepMs ?? 1_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await Promise.all([this.pods.stop(), this.services.stop(), this.nodes.stop()]);
  }

  /** Messages about one pod are handled one after another. */
  private inLane(key: string, step: () => Promise<void>): void {
    const run = (this.lanes.get(key) ?? Promise.resolve()).then(step).catch((err: unknown) => {
      this.deps.logger.warn({ pod: key, err: errorMessage(err) }, 'carried pod not handled; the consumer resends');
    });
    this.lanes.set(key, run);
    void run.finally(() => { if (this.lanes.get(key) === run) this.lanes.delete(key); });
  }

  private liveContract(id: string, buyer: string): Contract | undefined {
    return this.deps.contracts().find((c) => c.contractId === id && c.buyer === buyer && c.expiresAt > this.now());
  }

  private async onPod(m: PeerPodMessage): Promise<void> {
    const buyer = m.sender;
    // a contract that ended is gone from the book: its pods are in the buyer's namespace all the same
    const namespace = this.liveContract(m.contractId, buyer)?.peering.namespace ?? peeringNamespace(buyer);
    const name = carriedName(buyer, m.pod);
    if (m.delete === true) {
      await this.remove(namespace, name);
      this.send(buyer, { contractId: m.contractId, pod: m.pod, state: 'gone' });
      return;
    }
    const contract = this.liveContract(m.contractId, buyer);
    if (contract === undefined && this.pods.get(`${namespace}/${name}`) !== undefined) {
      // running here under a contract that ended: it goes, and its deletion tells the buyer
      await this.remove(namespace, name);
      return;
    }
    if (contract === undefined) {
      this.send(buyer, { contractId: m.contractId, pod: m.pod, state: 'refused', reason: `${this.deps.cluster} holds no live contract ${m.contractId} for ${buyer}: the pod runs only under a contract that has not ended` });
      return;
    }
    const existing = this.pods.get(`${contract.peering.namespace}/${name}`);
    if (existing !== undefined) { this.report(existing, true); return; }
    const policy = this.deps.policyOf(buyer);
    const refusal = workloadRefusal(workloadOfPod(m.spec), { cluster: this.deps.cluster, origin: buyer, component: `${m.pod.namespace}/${m.pod.name}`, policy, clusterImages: this.deps.clusterImages ?? [] });
    if (refusal !== undefined) {
      this.send(buyer, { contractId: m.contractId, pod: m.pod, state: 'refused', reason: refusal });
      return;
    }
    const level = policy?.level ?? 'restricted';
    await this.guard(buyer, contract.peering.namespace, level, m.spec);
    const pod = providerPod({ consumer: buyer, contractId: contract.contractId, namespace: contract.peering.namespace, pod: m.pod, spec: m.spec as Record<string, unknown>, level });
    try {
      // a resend after a restart finds the pod by its name: never two for one consumer pod
      await this.api.create(pathOf('/api/v1', 'pods', contract.peering.namespace), pod);
      this.deps.logger.info({ buyer, contract: contract.contractId, pod: `${m.pod.namespace}/${m.pod.name}` }, 'carried pod created');
    } catch (err) {
      // the API server's own admission (Pod Security, quota) has the last word
      this.send(buyer, { contractId: m.contractId, pod: m.pod, state: 'refused', reason: `${this.deps.cluster} refused the pod: ${errorMessage(err)}` });
    }
  }

  /** The buyer's namespace here: Pod Security labels, and a quota, limits and policy holding its live contracts. */
  private async guard(buyer: string, namespace: string, level: HostingPolicy['level'], spec: unknown): Promise<void> {
    const held = this.deps.contracts().filter((c) => c.buyer === buyer && c.peering.namespace === namespace && c.expiresAt > this.now())
      .map((c) => ({ request: { metadata: { name: c.contractId }, spec: {} } as unknown as HostRequest, reserved: { cpu: c.resources.cpu, memory: c.resources.memory, pods: c.resources.pods > 0 ? c.resources.pods : 110 } }));
    const objects = hostedNamespaceObjects({ origin: buyer, namespace, level, requests: held });
    // NodePort traffic reaches the carried pods' declared ports (this one's and those running here)
    const pods = [...this.pods.list().filter((p) => p.metadata?.namespace === namespace), { spec } as V1Pod];
    const ports = openPorts(pods);
    if (ports.length > 0 && objects.policy.spec !== undefined) objects.policy.spec.ingress = [...(objects.policy.spec.ingress ?? []), { ports }];
    const at = (o: KubernetesObject, root: string, plural: string, ns?: string): [string, KubernetesObject] => [pathOf(root, plural, ns, o.metadata?.name), o];
    for (const [path, object] of [
      at(objects.namespace, '/api/v1', 'namespaces'), at(objects.quota, '/api/v1', 'resourcequotas', namespace),
      at(objects.limits, '/api/v1', 'limitranges', namespace), at(objects.policy, '/apis/networking.k8s.io/v1', 'networkpolicies', namespace),
    ]) {
      const wanted = JSON.stringify(object);
      if (this.written.get(path) === wanted) continue;
      await this.api.apply(path, object);
      this.written.set(path, wanted);
    }
  }

  private async remove(namespace: string, name: string): Promise<void> {
    this.deleting.add(`${namespace}/${name}`);
    await this.api.remove(pathOf('/api/v1', 'pods', namespace, name), { gracePeriodSeconds: 0 });
  }

  /** The provider pod's status to its buyer, when it changed (or when asked again). */
  private report(pod: V1Pod, again = false): void {
    const from = consumerPodOf(pod);
    if (from === undefined) return;
    const key = objectKey(pod);
    this.expose(pod);
    const status = { phase: pod.status?.phase, conditions: pod.status?.conditions, containerStatuses: pod.status?.containerStatuses, podIP: pod.status?.podIP, podIPs: pod.status?.podIPs, startTime: pod.status?.startTime, reason: pod.status?.reason, message: pod.status?.message };
    const reach = this.reachOf(pod);
    const said = JSON.stringify({ status, reach });
    if (!again && this.said.get(key) === said) return;
    this.said.set(key, said);
    this.send(from.consumer, { contractId: from.contractId, pod: from.ref, state: 'running', status: JSON.parse(JSON.stringify(status)) as unknown, ...(reach === undefined ? {} : { reach }) });
  }

  /** The pod's NodePort Service (owned by the pod: it goes with it), asked for once per pod. */
  private expose(pod: V1Pod): void {
    const uid = pod.metadata?.uid;
    const service = exposureService(pod);
    if (uid === undefined || service === undefined || this.exposed.has(uid) || pod.metadata?.deletionTimestamp !== undefined) return;
    this.exposed.add(uid);
    this.api.create(pathOf('/api/v1', 'services', pod.metadata?.namespace), service).catch((err: unknown) => {
      this.exposed.delete(uid);
      this.deps.logger.warn({ pod: objectKey(pod), err: errorMessage(err) }, 'carried pod\'s NodePort Service not made; its next report asks again');
    });
  }

  /** Where the buyer reaches the pod: this cluster's address and the node port of each declared port. */
  private reachOf(pod: V1Pod): PeerPodStatusMessage['reach'] {
    const ports = reachablePorts(this.services.get(`${pod.metadata?.namespace ?? ''}/${exposureName(pod)}`));
    const address = publicAddress(this.deps.publicAddress, this.nodes.list());
    return ports === undefined || address === undefined ? undefined : { address, ports };
  }

  private onDeleted(pod: V1Pod): void {
    const key = objectKey(pod);
    this.said.delete(key);
    if (pod.metadata?.uid !== undefined) this.exposed.delete(pod.metadata.uid);
    const from = consumerPodOf(pod);
    if (from === undefined) return;
    const asked = this.deleting.delete(key);
    this.send(from.consumer, asked
      ? { contractId: from.contractId, pod: from.ref, state: 'gone' }
      : { contractId: from.contractId, pod: from.ref, state: 'lost', reason: `the pod was deleted on ${this.deps.cluster}` });
  }

  /** Pods whose contract ended go, with the contract. */
  private async sweep(): Promise<void> {
    for (const pod of this.pods.list()) {
      const from = consumerPodOf(pod);
      if (from === undefined || pod.metadata?.deletionTimestamp !== undefined) continue;
      if (this.liveContract(from.contractId, from.consumer) !== undefined) continue;
      this.deps.logger.info({ buyer: from.consumer, contract: from.contractId, pod: objectKey(pod) }, 'contract ended: carried pod deleted');
      await this.remove(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '').catch((err: unknown) => {
        this.deps.logger.warn({ pod: objectKey(pod), err: errorMessage(err) }, 'carried pod not deleted; next sweep');
      });
    }
  }

  private send(to: string, body: StatusBody): void {
    this.deps.bus.publish(directTopic(this.deps.cluster, to, 'rear-pod-status'), { kind: 'rear-pod-status', to, ...body }).catch((err: unknown) => {
      this.deps.logger.warn({ to, pod: `${body.pod.namespace}/${body.pod.name}`, err: errorMessage(err) }, 'carried pod status not sent; the next change or resend sends it');
    });
  }
}
