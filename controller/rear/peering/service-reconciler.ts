// The consumer's Services to carried pods (thin shell over carried-service.ts): a Service →
// queue → reconcile(key) → one EndpointSlice per carried pod it selects, at the address and node
// ports its provider reported; slices of pods gone, deleted or no longer selected are removed.
// What cannot be carried is said on the Service as a Warning Event (once per message).
import type { V1EndpointSlice, V1Pod, V1Service } from '@kubernetes/client-node';
import { objectKey, type Informer } from '../../../shared/kube/informer.ts';
import { errorMessage } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/log.ts';
import { isoTime } from '../../../shared/time.ts';
import type { Reach } from '../../offload/objects.ts';
import { FIELD_MANAGER } from '../../kube-writer.ts';
import type { ReconcileResult } from '../../runner.ts';
import { carriedEndpoint, selects, serviceRefusal, SERVICE_NAME_LABEL } from './carried-service.ts';
import { pathOf, type PeeringApi } from './kube.ts';
import { CARRIED_LABELS } from './pod-carry.ts';

export const SLICES = '/apis/discovery.k8s.io/v1';

export interface ServiceReconcilerDeps {
  readonly api: PeeringApi;
  readonly services: Informer<V1Service>;
  /** This reconciler's EndpointSlices (by their manager label). */
  readonly slices: Informer<V1EndpointSlice>;
  /** The carried pods of a namespace that run, each with where its provider reaches it (once known). */
  readonly carried: (namespace: string) => Array<{ pod: V1Pod; reach?: Reach }>;
  readonly logger: Logger;
}

export class ServiceReconciler {
  private readonly deps: ServiceReconcilerDeps;
  /** The last Warning said per Service, so a renewal does not say it again. */
  private readonly said = new Map<string, string>();
  private readonly written = new Map<string, string>();

  constructor(deps: ServiceReconcilerDeps) {
    this.deps = deps;
  }

  /** The Services of a namespace that may select carried pods (those with a selector). */
  servicesIn(namespace: string): string[] {
    return this.deps.services.list().filter((s) => s.metadata?.namespace === namespace && Object.keys(s.spec?.selector ?? {}).length > 0).map((s) => objectKey(s));
  }

  /** The slices a Service should have, and what of it cannot reach the carried pods it selects. */
  private wanted(service: V1Service | undefined, namespace: string, held: readonly V1EndpointSlice[]): { slices: V1EndpointSlice[]; kept: string[]; problems: string[] } {
    const pods = service === undefined ? [] : this.deps.carried(namespace).filter((c) => selects(service, c.pod));
    if (service === undefined || pods.length === 0) return { slices: [], kept: [], problems: [] };
    const refusal = serviceRefusal(service);
    if (refusal !== undefined) return { slices: [], kept: [], problems: [refusal] };
    const slices: V1EndpointSlice[] = [];
    const kept: string[] = [];
    const problems: string[] = [];
    for (const { pod, reach } of pods) {
      if (reach === undefined) {
        // not said yet (or not since this controller started): a slice made before stays until it is
        kept.push(...held.filter((h) => h.metadata?.labels?.[CARRIED_LABELS.uid] === pod.metadata?.uid).map((h) => h.metadata?.name ?? ''));
        continue;
      }
      const made = carriedEndpoint(service, pod, reach);
      problems.push(...made.problems);
      if (made.slice !== undefined) slices.push(made.slice);
    }
    return { slices, kept, problems };
  }

  reconcile = async (key: string, log: Logger): Promise<ReconcileResult> => {
    const [namespace = '', name = ''] = key.split('/');
    const service = this.deps.services.get(key);
    const held = this.deps.slices.list().filter((s) => s.metadata?.namespace === namespace && s.metadata.labels?.[SERVICE_NAME_LABEL] === name);
    const { slices: wanted, kept, problems } = this.wanted(service, namespace, held);
    const pathOfSlice = (s: V1EndpointSlice): string => pathOf(SLICES, 'endpointslices', namespace, s.metadata?.name);
    for (const slice of wanted) {
      const body = JSON.stringify(slice);
      if (this.written.get(pathOfSlice(slice)) === body && held.some((h) => h.metadata?.name === slice.metadata?.name)) continue;
      await this.deps.api.apply(pathOfSlice(slice), slice);
      this.written.set(pathOfSlice(slice), body);
    }
    for (const slice of held.filter((h) => !kept.includes(h.metadata?.name ?? '') && !wanted.some((w) => w.metadata?.name === h.metadata?.name))) {
      await this.deps.api.remove(pathOfSlice(slice));
      this.written.delete(pathOfSlice(slice));
      log.info({ service: key, slice: slice.metadata?.name }, 'EndpointSlice to a carried pod removed');
    }
    if (service === undefined) this.said.delete(key);
    else await this.warn(service, problems.join('; '));
    return {};
  };

  /** A Warning Event on the Service when what cannot be carried changed. */
  private async warn(service: V1Service, message: string): Promise<void> {
    const key = objectKey(service);
    if ((this.said.get(key) ?? '') === message) return;
    this.said.set(key, message);
    if (message === '') return;
    const { name = '', namespace = '', uid } = service.metadata ?? {};
    const now = isoTime(Date.now());
    try {
      await this.deps.api.client.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, {
        body: {
          metadata: { generateName: `${name}.` },
          involvedObject: { apiVersion: 'v1', kind: 'Service', name, namespace, uid },
          type: 'Warning', reason: 'CarriedPodUnreachable', message: message.slice(0, 1024), source: { component: FIELD_MANAGER },
          firstTimestamp: now, lastTimestamp: now, count: 1, reportingComponent: FIELD_MANAGER,
        },
      });
    } catch (err) {
      this.deps.logger.warn({ service: key, err: errorMessage(err) }, 'Event about a carried pod not recorded');
    }
  }
}
