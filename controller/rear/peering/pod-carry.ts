// A pod carried from the consumer's virtual node to the provider (pure): what of its spec
// travels (the scheduling the consumer did, and the API server's defaults and token, stay
// behind), the provider's pod made from it, and the status reflected back.
import { createHash } from 'node:crypto';
import type { V1Pod, V1PodStatus } from '@kubernetes/client-node';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../../bundle/names.ts';
import type { Workload } from '../../offload/workload.ts';
import { hardenedPodSpec, type PodSecurityLevel } from '../../offload/pod-security.ts';
import type { PodRef } from '../messages/peer-pod.ts';

type Obj = Record<string, unknown>;

// `consumer` is DRONE's CARRIED_FOR_LABEL (../../drone/slicing/kube-input.ts): such a pod is not counted as used on top of its contract
export const CARRIED_LABELS = { contract: 'rear.edgeshifu.io/contract', consumer: 'rear.edgeshifu.io/consumer', uid: 'rear.edgeshifu.io/consumer-uid' } as const;
export const CARRIED_FROM = 'rear.edgeshifu.io/carried-from';

/**
 * Fields the consumer's scheduler and API server set: where to run (the virtual node, its
 * toleration), the defaults (DNS policy, scheduler, priority) and the ServiceAccount with its
 * token volume. None of them means anything on the provider, which runs it under its own rules.
 */
const CONSUMER_ONLY = ['nodeName', 'nodeSelector', 'affinity', 'tolerations', 'schedulerName', 'priority', 'priorityClassName', 'preemptionPolicy', 'dnsPolicy', 'serviceAccountName', 'serviceAccount', 'topologySpreadConstraints', 'overhead', 'hostname', 'subdomain', 'setHostnameAsFQDN', 'schedulingGates', 'resourceClaims', 'readinessGates'];

const isTokenVolume = (v: Obj): boolean => {
  const sources = (v.projected as Obj | undefined)?.sources;
  return Array.isArray(sources) && (sources as Obj[]).some((s) => s.serviceAccountToken !== undefined);
};

/** The spec that travels: the consumer-only fields and the injected token volume (and its mounts) taken out. */
export function carriedSpec(podSpec: Readonly<Obj>): Obj {
  const spec = Object.fromEntries(Object.entries(structuredClone(podSpec)).filter(([field]) => !CONSUMER_ONLY.includes(field)));
  const volumes = Array.isArray(spec.volumes) ? spec.volumes as Obj[] : [];
  const tokens = new Set(volumes.filter(isTokenVolume).map((v) => v.name));
  if (tokens.size > 0) {
    const kept = volumes.filter((v) => !tokens.has(v.name));
    if (kept.length > 0) spec.volumes = kept;
    else delete spec.volumes;
    for (const field of ['initContainers', 'containers'] as const) {
      if (!Array.isArray(spec[field])) continue;
      spec[field] = (spec[field] as Obj[]).map((c) => {
        if (!Array.isArray(c.volumeMounts)) return c;
        const mounts = (c.volumeMounts as Obj[]).filter((m) => !tokens.has(m.name));
        const rest = Object.fromEntries(Object.entries(c).filter(([field]) => field !== 'volumeMounts'));
        return mounts.length > 0 ? { ...rest, volumeMounts: mounts } : rest;
      });
    }
  }
  if (spec.automountServiceAccountToken === false) delete spec.automountServiceAccountToken;
  return spec;
}

/** The pod spec as an offloaded component's Deployment template, so the host's admission checks it by the same paths. */
export function workloadOfPod(podSpec: unknown): Workload {
  return { template: { spec: { replicas: 1, template: { spec: podSpec } } }, ports: [], overrides: [] } as unknown as Workload;
}

/** The provider's name for a carried pod: the consumer's name and a digest of where it came from, so a resend finds the same pod. */
export function carriedName(consumer: string, pod: PodRef): string {
  const digest = createHash('sha256').update(`${consumer}/${pod.namespace}/${pod.name}/${pod.uid}`).digest('hex').slice(0, 10);
  return `${pod.name.slice(0, 200).replace(/[-.]+$/, '')}-${digest}`;
}

/** The pod the provider runs: hardened as a hosted component's pod is, labelled with the contract and the consumer's pod. */
export function providerPod(args: { consumer: string; contractId: string; namespace: string; pod: PodRef; spec: Obj; level: PodSecurityLevel }): V1Pod {
  const { consumer, contractId, namespace, pod, spec, level } = args;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: carriedName(consumer, pod), namespace,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY, [CARRIED_LABELS.contract]: contractId.slice(0, 63), [CARRIED_LABELS.consumer]: consumer, [CARRIED_LABELS.uid]: pod.uid.slice(0, 63) },
      annotations: { [CARRIED_FROM]: `${consumer}/${pod.namespace}/${pod.name}` },
    },
    spec: hardenedPodSpec(spec, level) as unknown as V1Pod['spec'],
  };
}

/** The consumer's pod back from a provider pod's annotation and labels. */
export function consumerPodOf(pod: V1Pod): { consumer: string; contractId: string; ref: PodRef } | undefined {
  const [consumer, namespace, name] = (pod.metadata?.annotations?.[CARRIED_FROM] ?? '').split('/');
  const labels = pod.metadata?.labels ?? {};
  const uid = labels[CARRIED_LABELS.uid];
  const contractId = labels[CARRIED_LABELS.contract];
  if (consumer === undefined || namespace === undefined || name === undefined || uid === undefined || contractId === undefined || name === '') return undefined;
  return { consumer, contractId, ref: { namespace, name, uid } };
}

/**
 * What of the provider pod's status the consumer's pod shows: phase, conditions, container states,
 * start. Not its IP: the consumer's EndpointSlice controller would list that provider pod IP under
 * every Service selecting the pod, unreachable unless the two pod networks are routed; the
 * Services reach the pod through the provider's NodePort instead (carried-service.ts).
 */
export function reflectedStatus(status: V1PodStatus | undefined): Obj {
  const s = status ?? {};
  return {
    phase: s.phase ?? 'Pending',
    conditions: s.conditions ?? [],
    containerStatuses: s.containerStatuses ?? [],
    ...(s.initContainerStatuses === undefined ? {} : { initContainerStatuses: s.initContainerStatuses }),
    ...(s.startTime === undefined ? {} : { startTime: s.startTime }),
    ...(s.reason === undefined ? {} : { reason: s.reason }),
    ...(s.message === undefined ? {} : { message: s.message }),
  };
}

/** A pod the provider refused or lost: Failed, as a kubelet fails a pod it cannot admit or has lost. */
export function failedStatus(reason: 'ProviderRefused' | 'ProviderLost', message: string, now: string): Obj {
  return {
    phase: 'Failed', reason, message: message.slice(0, 1024),
    conditions: [{ type: 'Ready', status: 'False', reason, message: message.slice(0, 1024), lastTransitionTime: now }],
  };
}

export function terminal(pod: V1Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}
