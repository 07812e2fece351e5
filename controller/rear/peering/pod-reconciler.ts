// The consumer's kubelet for virtual nodes (thin shell over pod-carry.ts): a pod bound to a
// virtual node → queue → reconcile(key) → `rear-pod` to the contract's provider, sent again every
// renewal; the provider's `rear-pod-status` is written on the pod's status. A pod being deleted is
// deleted on the provider, and removed here once the provider says it is gone (or, its contract
// over, after a grace); a pod refused or lost on the provider is Failed with the reason.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { BusClient } from '../../../shared/bus/client.ts';
import { agentFilters, directTopic } from '../../../shared/bus/topics.ts';
import { objectKey, type Informer } from '../../../shared/kube/informer.ts';
import { errorMessage } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/log.ts';
import { isoTime } from '../../../shared/time.ts';
import type { ReconcileResult } from '../../runner.ts';
import type { PeerPodMessage, PeerPodStatusMessage, RearMessage } from '../messages/index.ts';
import type { PodRef } from '../messages/peer-pod.ts';
import type { Reach } from '../../offload/objects.ts';
import { pathOf, type PeeringApi } from './kube.ts';
import { carriedSpec, failedStatus, reflectedStatus, terminal } from './pod-carry.ts';
import { contractLive, CONTRACT_ANNOTATION, type ContractResource } from './virtual-node.ts';

export interface PodReconcilerDeps {
  readonly api: PeeringApi;
  readonly bus: BusClient<RearMessage>;
  readonly cluster: string;
  readonly pods: Informer<V1Pod>;
  readonly nodes: Informer<V1Node>;
  readonly contracts: Informer<ContractResource>;
  readonly logger: Logger;
  /** How often a carried pod is sent again (a renewal, and how a restarted provider hears of it). */
  readonly resendMs?: number;
  /** How long a pod of an ended contract waits for the provider's word before it is removed here. */
  readonly endGraceMs?: number;
  readonly clock?: () => number;
  /** Told when where a namespace's carried pods are reached changed (its Services follow). */
  readonly reached?: (namespace: string) => void;
}

function refOf(pod: V1Pod): PodRef {
  const m = pod.metadata ?? {};
  return { namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid ?? '' };
}

export interface Carried { readonly provider: string; readonly contractId: string; readonly ref: PodRef }

export class PodReconciler {
  private readonly deps: PodReconcilerDeps;
  /** Every pod last seen on a virtual node: a pod that vanished here (deleted at once) is still deleted there. */
  private readonly carried = new Map<string, Carried>();
  /** Pod uids the provider reported gone. */
  private readonly gone = new Set<string>();
  /** Pod uids this side wrote Failed: a terminal phase is written once, the first reason kept (the cache may not show it yet). */
  private readonly failed = new Set<string>();
  /** Where each carried pod (uid) is reached, as its provider last said. */
  private readonly reaches = new Map<string, Reach>();
  /** Status writes for one pod go one after another. */
  private readonly lanes = new Map<string, Promise<void>>();
  enqueue: (key: string) => void = () => undefined;

  constructor(deps: PodReconcilerDeps) {
    this.deps = deps;
  }

  private now(): number { return (this.deps.clock ?? Date.now)(); }

  async start(): Promise<void> {
    await this.deps.bus.subscribe(agentFilters(this.deps.cluster), (m) => {
      if (m.kind !== 'rear-pod-status') return;
      const key = `${m.pod.namespace}/${m.pod.name}`;
      const run = (this.lanes.get(key) ?? Promise.resolve()).then(() => this.onStatus(m));
      this.lanes.set(key, run);
      void run.finally(() => { if (this.lanes.get(key) === run) this.lanes.delete(key); });
    });
  }

  /** Whether a pod is on a virtual node (or was, and is still known): the queue takes only those. */
  concerns(pod: V1Pod): boolean {
    return this.carried.has(objectKey(pod)) || this.contractOf(pod.spec?.nodeName) !== undefined;
  }

  /** The carried pods of a namespace that run (not ended, not being deleted), with where they are reached. */
  carriedIn(namespace: string): Array<{ pod: V1Pod; reach?: Reach }> {
    return this.deps.pods.list().filter((p) => p.metadata?.namespace === namespace && p.metadata.deletionTimestamp === undefined && !terminal(p) && this.carried.has(objectKey(p)))
      .map((pod) => {
        const reach = this.reaches.get(pod.metadata?.uid ?? '');
        return reach === undefined ? { pod } : { pod, reach };
      });
  }

  /** Where a pod is carried (its provider, contract and ref), once this reconciler has carried it. */
  carriage(key: string): Carried | undefined {
    return this.carried.get(key);
  }

  /** Where the provider says the pod is reached; a pod no longer running there is reached nowhere. */
  private heardReach(m: PeerPodStatusMessage): void {
    if (m.state !== 'running') this.forget(m.pod);
    else if (m.reach !== undefined && JSON.stringify(this.reaches.get(m.pod.uid)) !== JSON.stringify(m.reach)) {
      this.reaches.set(m.pod.uid, m.reach);
      this.deps.reached?.(m.pod.namespace);
    }
  }

  private forget(ref: PodRef): void {
    if (this.reaches.delete(ref.uid)) this.deps.reached?.(ref.namespace);
  }

  podsOn(node: string): V1Pod[] {
    return this.deps.pods.list().filter((p) => p.spec?.nodeName === node);
  }

  private contractOf(nodeName: string | undefined): ContractResource | undefined {
    if (nodeName === undefined) return undefined;
    const ref = this.deps.nodes.get(nodeName)?.metadata?.annotations?.[CONTRACT_ANNOTATION];
    return ref === undefined ? undefined : this.deps.contracts.get(ref);
  }

  reconcile = async (key: string, log: Logger): Promise<ReconcileResult> => {
    const pod = this.deps.pods.get(key);
    const known = this.carried.get(key);
    if (pod === undefined) {
      // removed here without the provider's word (deleted at once, or by the node's removal)
      if (known !== undefined && !this.gone.delete(known.ref.uid)) this.send(known, { delete: true });
      this.carried.delete(key);
      if (known !== undefined) {
        this.failed.delete(known.ref.uid);
        this.forget(known.ref);
      }
      return {};
    }
    const contract = this.contractOf(pod.spec?.nodeName);
    const carried = contract === undefined ? known : { provider: contract.spec.seller.nodeID, contractId: contract.spec.contractID, ref: refOf(pod) };
    if (carried === undefined) return {};
    this.carried.set(key, carried);
    if (pod.metadata?.deletionTimestamp !== undefined) return this.deleting(pod, carried, contract, log);
    // an ended contract's pods wait for the node's drain: the provider would refuse them
    if (terminal(pod) || (contract !== undefined && !contractLive(contract, this.now()))) return {};
    this.send(carried, { spec: carriedSpec((pod.spec ?? {}) as unknown as Record<string, unknown>) });
    return { requeueAfterMs: this.deps.resendMs ?? 15_000 };
  };

  /** Deleted on the provider first; removed here once it is gone there (or its contract is over and the grace passed). */
  private async deleting(pod: V1Pod, carried: Carried, contract: ContractResource | undefined, log: Logger): Promise<ReconcileResult> {
    const { ref } = carried;
    const ended = contract === undefined || !contractLive(contract, this.now());
    const waited = this.now() - new Date(pod.metadata?.deletionTimestamp ?? 0).getTime() >= (this.deps.endGraceMs ?? 10_000);
    if (this.gone.has(ref.uid) || terminal(pod) || (ended && waited)) {
      await this.deps.api.remove(pathOf('/api/v1', 'pods', ref.namespace, ref.name), { gracePeriodSeconds: 0 });
      log.info({ pod: `${ref.namespace}/${ref.name}`, provider: carried.provider }, 'carried pod deleted on both sides');
      return {};
    }
    this.send(carried, { delete: true });
    return { requeueAfterMs: 1_000 };
  }

  private send(carried: Carried, body: Pick<PeerPodMessage, 'spec' | 'delete'>): void {
    const { provider, contractId, ref } = carried;
    this.deps.bus.publish(directTopic(this.deps.cluster, provider, 'rear-pod'), { kind: 'rear-pod', to: provider, contractId, pod: ref, ...body }).catch((err: unknown) => {
      this.deps.logger.warn({ pod: `${ref.namespace}/${ref.name}`, provider, err: errorMessage(err) }, 'carried pod not sent; the next renewal sends it');
    });
  }

  private statusOf(m: PeerPodStatusMessage): Record<string, unknown> {
    if (m.state === 'running') return reflectedStatus(m.status as V1Pod['status']);
    // gone while not being deleted here: the provider ended it (its contract is over there)
    const reason = m.reason ?? (m.state === 'gone' ? `${m.sender} removed the pod: contract ${m.contractId} is no longer live there` : `${m.sender} ${m.state} the pod`);
    return failedStatus(m.state === 'refused' ? 'ProviderRefused' : 'ProviderLost', reason, isoTime(this.now()));
  }

  /** The provider's word about a pod: only the pod's own provider is heard, and only about that very pod (uid). */
  private async onStatus(m: PeerPodStatusMessage): Promise<void> {
    const key = `${m.pod.namespace}/${m.pod.name}`;
    const carried = this.carried.get(key);
    if (carried?.provider !== m.sender || carried.ref.uid !== m.pod.uid) return;
    if (m.state === 'gone') {
      this.gone.add(m.pod.uid);
      this.enqueue(key);
    }
    this.heardReach(m);
    const pod = this.deps.pods.get(key);
    if (pod === undefined || pod.metadata?.uid !== m.pod.uid || terminal(pod) || this.failed.has(m.pod.uid)) return;
    if (m.state !== 'running' && pod.metadata.deletionTimestamp !== undefined) return;
    const status = this.statusOf(m);
    try {
      await this.deps.api.merge(`${pathOf('/api/v1', 'pods', m.pod.namespace, m.pod.name)}/status`, { metadata: { uid: m.pod.uid }, status });
      if (status.phase === 'Failed') this.failed.add(m.pod.uid);
      if (m.state !== 'running') this.deps.logger.warn({ pod: key, provider: m.sender, state: m.state, reason: m.reason }, 'carried pod failed on the provider');
    } catch (err) {
      this.deps.logger.warn({ pod: key, err: errorMessage(err) }, 'carried pod status not written; the next report writes it');
    }
  }
}
