// What the controller asks this host to serve, read from the devices' Services (pure): each
// Service labelled for this host names its device (labels), the port to serve it on (its
// targetPort) and the device's ConfigMap (an annotation). The Service is the only record of the
// assignment, so callers, the host and the controller cannot disagree on a port.
import { ANNOTATION_CONFIG_MAP } from '../../shared/node-host.ts';

export interface Assignment {
  readonly name: string;
  readonly namespace: string;
  readonly port: number;
  readonly configMap: string;
}

export interface ServiceLike {
  readonly metadata?: { readonly name?: string; readonly labels?: Readonly<Record<string, string>>; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: { readonly ports?: ReadonlyArray<{ readonly name?: string; readonly targetPort?: number | string }> };
}

const LABEL_DEVICE = 'shifu.edgenesis.io/edgedevice';
const LABEL_DEVICE_NAMESPACE = 'shifu.edgenesis.io/edgedevice-namespace';

export function assignmentKey(a: Pick<Assignment, 'name' | 'namespace'>): string {
  return `${a.namespace}/${a.name}`;
}

function httpTargetPort(service: ServiceLike): number | undefined {
  const port = service.spec?.ports?.find((p) => p.name === 'http')?.targetPort;
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? port : undefined;
}

/** The assignment a Service carries, or why it carries none. */
export function assignmentOf(service: ServiceLike): Assignment | string {
  const labels = service.metadata?.labels ?? {};
  const name = labels[LABEL_DEVICE];
  const namespace = labels[LABEL_DEVICE_NAMESPACE];
  const configMap = service.metadata?.annotations?.[ANNOTATION_CONFIG_MAP];
  const port = httpTargetPort(service);
  const what = `Service ${service.metadata?.name ?? '?'}`;
  if (name === undefined || namespace === undefined) return `${what} names no EdgeDevice in its labels`;
  if (configMap === undefined || configMap === '') return `${what} names no ConfigMap (annotation ${ANNOTATION_CONFIG_MAP})`;
  if (port === undefined) return `${what} has no numeric targetPort on its http port`;
  return { name, namespace, port, configMap };
}

/** Every assignment of the Services, and what was wrong with the others; one device per port. */
export function assignmentsOf(services: readonly ServiceLike[]): { readonly assignments: Assignment[]; readonly problems: string[] } {
  const assignments: Assignment[] = [];
  const problems: string[] = [];
  const ports = new Map<number, string>();
  for (const service of services) {
    const a = assignmentOf(service);
    if (typeof a === 'string') {
      problems.push(a);
      continue;
    }
    const holder = ports.get(a.port);
    if (holder !== undefined) {
      problems.push(`${assignmentKey(a)} and ${holder} were both given port ${String(a.port)}; ${holder} keeps it`);
      continue;
    }
    ports.set(a.port, assignmentKey(a));
    assignments.push(a);
  }
  return { assignments, problems };
}
