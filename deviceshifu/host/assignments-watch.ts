// The host's assignment, followed from the API: the Services in its namespace labelled for this
// host (one list-and-watch), turned into assignments on every change.
import type { KubernetesListObject, V1Service } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { Informer } from '../../shared/kube/informer.ts';
import type { Logger } from '../../shared/log.ts';
import { LABEL_HOST } from '../../shared/node-host.ts';
import { assignmentsOf, type Assignment } from './assignment.ts';

export interface AssignmentSource {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly hostId: string;
  readonly logger: Logger;
}

export function watchAssignments(source: AssignmentSource, onChange: (assignments: Assignment[]) => void): Informer<V1Service> {
  const { client, namespace, hostId, logger } = source;
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/services`;
  const labelSelector = `${LABEL_HOST}=${hostId}`;
  const informer = new Informer<V1Service>({
    path, logger, labelSelector, watch: client.watch,
    list: () => client.request<KubernetesListObject<V1Service>>('GET', path, { query: { labelSelector } }),
  });
  let last = '';
  const changed = (): void => {
    // by name, so which of two Services given one port keeps it does not depend on arrival order
    const services = informer.list().sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
    const { assignments, problems } = assignmentsOf(services);
    const now = JSON.stringify(assignments);
    if (now === last) return;
    last = now;
    for (const problem of problems) logger.warn({ problem }, 'a Service for this host was skipped');
    onChange(assignments);
  };
  for (const event of ['add', 'update', 'delete'] as const) informer.on(event, changed);
  return informer;
}
