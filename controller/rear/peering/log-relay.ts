// Logs on request over the signed bus. The consumer asks (`rear-pod-log-request`) for one of its
// pods on a virtual node; the provider reads `pods/log` of that very carried pod (follow=false)
// and answers (`rear-pod-log`). The provider answers only the buyer of a live contract about a pod
// carried under it (the pod's labels name both, and the consumer pod's uid); the bus client has
// already dropped an unsigned, forged or replayed request. An answer holds MAX_LOG_BYTES at most.
import { randomUUID } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import type { Body, BusClient } from '../../../shared/bus/client.ts';
import { directTopic } from '../../../shared/bus/topics.ts';
import type { KubeClient } from '../../../shared/kube/client.ts';
import type { Informer } from '../../../shared/kube/informer.ts';
import { EdgeshifuError, errorMessage, type ErrorKind } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/log.ts';
import type { Contract } from '../core/model.ts';
import type { PodLogAnswerMessage, PodLogRequestMessage, RearMessage } from '../messages/index.ts';
import type { PodRef } from '../messages/peer-pod.ts';
import { MAX_LOG_BYTES, type LogOptions } from '../messages/pod-log-request.ts';
import { carriedName, consumerPodOf } from './pod-carry.ts';

/** The API server's answer to a failed request: its Status message, else the text. */
function statusMessage(body: string): string {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch { /* not a Status: the text itself */ }
  return body.slice(0, 512);
}

const KIND_OF_STATUS: Readonly<Record<number, ErrorKind>> = { 400: 'invalid', 403: 'forbidden', 404: 'not-found' };

/** The query `kubectl logs` sends a kubelet through the API server, bounded by MAX_LOG_BYTES. */
export function logQuery(options: LogOptions): Record<string, string | number> {
  return {
    ...(options.container === undefined ? {} : { container: options.container }),
    ...(options.tailLines === undefined ? {} : { tailLines: options.tailLines }),
    ...(options.sinceSeconds === undefined ? {} : { sinceSeconds: options.sinceSeconds }),
    ...(options.sinceTime === undefined ? {} : { sinceTime: options.sinceTime }),
    ...(options.timestamps === true ? { timestamps: 'true' } : {}),
    ...(options.previous === true ? { previous: 'true' } : {}),
    limitBytes: Math.min(options.limitBytes ?? MAX_LOG_BYTES, MAX_LOG_BYTES),
  };
}

export interface PodLogServerDeps {
  readonly client: KubeClient;
  readonly bus: BusClient<RearMessage>;
  readonly cluster: string;
  /** The carried pods here. */
  readonly pods: Informer<V1Pod>;
  readonly liveContract: (id: string, buyer: string) => Contract | undefined;
  readonly logger: Logger;
}

type Answer = Pick<PodLogAnswerMessage, 'log' | 'truncated' | 'error'>;

/** Provider side: answers a buyer's log request about a pod carried under its live contract. */
export class PodLogServer {
  private readonly deps: PodLogServerDeps;

  constructor(deps: PodLogServerDeps) {
    this.deps = deps;
  }

  async answer(m: PodLogRequestMessage): Promise<void> {
    const body = await this.read(m).catch((err: unknown): Answer => ({ error: { kind: 'unavailable', message: `${this.deps.cluster} could not read the log: ${errorMessage(err)}`.slice(0, 2048) } }));
    const reply: Body<PodLogAnswerMessage> = { kind: 'rear-pod-log', to: m.sender, requestId: m.requestId, pod: m.pod, ...body };
    await this.deps.bus.publish(directTopic(this.deps.cluster, m.sender, 'rear-pod-log'), reply).catch((err: unknown) => {
      this.deps.logger.warn({ to: m.sender, pod: `${m.pod.namespace}/${m.pod.name}`, err: errorMessage(err) }, 'log answer not sent; the consumer asks again');
    });
  }

  private async read(m: PodLogRequestMessage): Promise<Answer> {
    const buyer = m.sender;
    const contract = this.deps.liveContract(m.contractId, buyer);
    if (contract === undefined) return { error: { kind: 'forbidden', message: `${this.deps.cluster} holds no live contract ${m.contractId} for ${buyer}: logs are read only for pods of a live contract` } };
    const namespace = contract.peering.namespace;
    const name = carriedName(buyer, m.pod);
    const pod = this.deps.pods.get(`${namespace}/${name}`);
    const from = pod === undefined ? undefined : consumerPodOf(pod);
    if (from?.consumer !== buyer || from.contractId !== contract.contractId || from.ref.uid !== m.pod.uid) {
      return { error: { kind: 'not-found', message: `${this.deps.cluster} runs no pod ${m.pod.namespace}/${m.pod.name} (uid ${m.pod.uid}) for ${buyer} under contract ${m.contractId}` } };
    }
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/log`;
    const raw = await this.deps.client.requestRaw('GET', path, { query: logQuery(m.options) });
    if (raw.status < 200 || raw.status >= 300) {
      return { error: { kind: KIND_OF_STATUS[raw.status] ?? 'unavailable', message: `${this.deps.cluster}'s API server answered ${String(raw.status)}: ${statusMessage(raw.body)}`.slice(0, 2048) } };
    }
    const bytes = Buffer.from(raw.body, 'utf8');
    if (bytes.length <= MAX_LOG_BYTES) return { log: raw.body };
    return { log: bytes.subarray(bytes.length - MAX_LOG_BYTES).toString('utf8'), truncated: true };
  }
}

export interface PodLogClientDeps {
  readonly bus: BusClient<RearMessage>;
  readonly cluster: string;
  readonly logger: Logger;
  /** How long an answer is waited for (the REAR reply timeout). */
  readonly replyTimeoutMs?: number;
}

interface Waiting { readonly provider: string; readonly uid: string; readonly settle: (m: PodLogAnswerMessage) => void }

/** Consumer side: asks a carried pod's provider for its log and waits for the answer. */
export class PodLogClient {
  private readonly deps: PodLogClientDeps;
  private readonly waiting = new Map<string, Waiting>();

  constructor(deps: PodLogClientDeps) {
    this.deps = deps;
  }

  /** An answer is heard only from the provider asked, about the pod asked. */
  heard(m: PodLogAnswerMessage): void {
    const w = this.waiting.get(m.requestId);
    if (w?.provider !== m.sender || w.uid !== m.pod.uid) return;
    this.waiting.delete(m.requestId);
    w.settle(m);
  }

  async logs(carried: { provider: string; contractId: string; ref: PodRef }, options: LogOptions): Promise<{ log: string; truncated: boolean }> {
    const requestId = randomUUID();
    const timeoutMs = this.deps.replyTimeoutMs ?? 10_000;
    const answer = new Promise<PodLogAnswerMessage | undefined>((resolve) => {
      const timer = setTimeout(() => { this.waiting.delete(requestId); resolve(undefined); }, timeoutMs);
      this.waiting.set(requestId, { provider: carried.provider, uid: carried.ref.uid, settle: (m) => { clearTimeout(timer); resolve(m); } });
    });
    const request: Body<PodLogRequestMessage> = { kind: 'rear-pod-log-request', to: carried.provider, requestId, contractId: carried.contractId, pod: carried.ref, options };
    await this.deps.bus.publish(directTopic(this.deps.cluster, carried.provider, 'rear-pod-log-request'), request);
    const m = await answer;
    if (m === undefined) throw new EdgeshifuError('timeout', `${carried.provider} did not answer the log request within ${String(timeoutMs)} ms`);
    if (m.error !== undefined) throw new EdgeshifuError(m.error.kind, m.error.message);
    return { log: m.log ?? '', truncated: m.truncated === true };
  }
}
