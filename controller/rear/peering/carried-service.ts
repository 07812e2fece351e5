// Services to carried pods (pure), as offloaded components are reached (../../offload/objects.ts):
// the provider exposes each carried pod's declared container ports on a NodePort Service of its
// own, and the consumer keeps, per Service selecting that pod, an EndpointSlice to the provider's
// node address at those node ports. A Service port maps through its targetPort (a number, or a
// name looked up in the pod's container ports, as Kubernetes does) to the NodePort of that port.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { V1EndpointSlice, V1NetworkPolicyPort, V1Pod, V1Service, V1ServicePort } from '@kubernetes/client-node';
import { LABEL_MANAGED_BY, MANAGED_BY } from '../../bundle/names.ts';
import type { Reach } from '../../offload/objects.ts';
import { CARRIED_LABELS } from './pod-carry.ts';

/** The consumer's EndpointSlices of carried pods carry this manager (the EndpointSlice controller leaves them alone). */
export const SLICE_MANAGER = 'rear.edgeshifu.io';
export const SLICE_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

const digest = (text: string, length: number): string => createHash('sha256').update(text).digest('hex').slice(0, length);

interface DeclaredPort { readonly name?: string; readonly port: number; readonly protocol: string }

/** The ports a pod's containers declare, each port/protocol once. */
export function declaredPorts(pod: V1Pod): DeclaredPort[] {
  const all = (pod.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => ({ ...(p.name === undefined ? {} : { name: p.name }), port: p.containerPort, protocol: p.protocol ?? 'TCP' })));
  return all.filter((p, i) => all.findIndex((q) => q.port === p.port && q.protocol === p.protocol) === i);
}

/** The TCP and UDP ports some carried pods declare, once each, for the namespace's network policy. */
export function openPorts(pods: readonly V1Pod[]): V1NetworkPolicyPort[] {
  const all = pods.flatMap(declaredPorts).filter((p) => p.protocol === 'TCP' || p.protocol === 'UDP');
  return all.filter((p, i) => all.findIndex((q) => q.port === p.port && q.protocol === p.protocol) === i)
    .sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol)).map((p) => ({ protocol: p.protocol, port: p.port }));
}

/** Provider side: the NodePort Service of one carried pod (its TCP and UDP ports), owned by the pod so it goes with it. */
export function exposureService(pod: V1Pod): V1Service | undefined {
  const m = pod.metadata ?? {};
  const labels = m.labels ?? {};
  const ports = declaredPorts(pod).filter((p) => p.protocol === 'TCP' || p.protocol === 'UDP');
  const consumer = labels[CARRIED_LABELS.consumer];
  const uid = labels[CARRIED_LABELS.uid];
  if (ports.length === 0 || consumer === undefined || uid === undefined || m.uid === undefined) return undefined;
  const selector = { [CARRIED_LABELS.consumer]: consumer, [CARRIED_LABELS.uid]: uid };
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: {
      name: exposureName(pod), namespace: m.namespace ?? '',
      labels: { ...selector, [LABEL_MANAGED_BY]: MANAGED_BY },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: m.name ?? '', uid: m.uid }],
    },
    spec: { type: 'NodePort', selector, ports: ports.map((p) => ({ name: `p-${String(p.port)}-${p.protocol.toLowerCase()}`, port: p.port, targetPort: p.port, protocol: p.protocol })) },
  };
}

/** The provider Service's name for a carried pod (a DNS label, from the provider pod's name). */
export function exposureName(pod: V1Pod): string {
  return `carried-${digest(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`, 16)}`;
}

/** Why a Service cannot reach carried pods at all (undefined: it can), said on it as an Event. */
export function serviceRefusal(service: V1Service): string | undefined {
  if (service.spec?.clusterIP === 'None') {
    return 'headless Service: its clients connect to each endpoint on the Service\'s own port, but a carried pod is reached on the provider\'s node port; give the Service a cluster IP';
  }
  return undefined;
}

/** Whether a Service's selector picks a pod (a Service without selector, or of type ExternalName, picks none). */
export function selects(service: V1Service, pod: V1Pod): boolean {
  const selector = service.spec?.selector;
  if (service.spec?.type === 'ExternalName' || selector === undefined || Object.keys(selector).length === 0) return false;
  if (pod.metadata?.namespace !== service.metadata?.namespace) return false;
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/** The container port a Service port targets on a pod: a number as is, a name through the pod's declared ports. */
function targetOf(port: V1ServicePort, pod: V1Pod): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  return declaredPorts(pod).find((p) => p.name === target && p.protocol === (port.protocol ?? 'TCP'))?.port;
}

export interface CarriedEndpoint {
  readonly slice?: V1EndpointSlice;
  /** What of the Service could not be mapped to this pod, for an Event. */
  readonly problems: string[];
}

/** The slice's ports: each Service port at the node port of the container port it targets. */
function mappedPorts(service: V1Service, pod: V1Pod, reach: Reach, ref: string): { ports: Array<{ name: string; port: number; protocol: string }>; problems: string[] } {
  const problems: string[] = [];
  const ports = (service.spec?.ports ?? []).flatMap((sp) => {
    const protocol = sp.protocol ?? 'TCP';
    const target = targetOf(sp, pod);
    const at = reach.ports.find((p) => p.port === target && (p.protocol ?? 'TCP') === protocol)?.at;
    if (at !== undefined) return [{ name: sp.name ?? '', port: at, protocol }];
    problems.push(`port ${sp.name ?? String(sp.port)} targets ${String(sp.targetPort ?? sp.port)}/${protocol}, which carried pod ${ref} does not declare in its containers' ports (TCP or UDP): the provider exposes only declared ports`);
    return [];
  });
  return { ports, problems };
}

/** Consumer side: a Service's EndpointSlice to one carried pod at the provider's address and node ports. */
export function carriedEndpoint(service: V1Service, pod: V1Pod, reach: Reach): CarriedEndpoint {
  const { name: svcName = '', namespace = '', uid: svcUid = '' } = service.metadata ?? {};
  const { name: podName = '', uid = '' } = pod.metadata ?? {};
  const ref = `${namespace}/${podName}`;
  const family = isIP(reach.address);
  if (family === 0) return { problems: [`the provider reaches pod ${ref} at ${reach.address}, which is not an IP address: an EndpointSlice holds addresses only`] };
  const { ports, problems } = mappedPorts(service, pod, reach, ref);
  if (ports.length === 0) return { problems };
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  return {
    problems,
    slice: {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: {
        name: `${svcName.slice(0, 40)}-rear-${digest(uid, 12)}`, namespace,
        labels: { [SERVICE_NAME_LABEL]: svcName, [SLICE_MANAGED_BY]: SLICE_MANAGER, [LABEL_MANAGED_BY]: MANAGED_BY, [CARRIED_LABELS.uid]: uid },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: svcName, uid: svcUid }],
      },
      addressType: family === 6 ? 'IPv6' : 'IPv4',
      endpoints: [{ addresses: [reach.address], conditions: { ready, serving: ready, terminating: false }, targetRef: { kind: 'Pod', namespace, name: podName, uid } }],
      ports,
    },
  };
}
