// Who may publish and subscribe where on a cluster's broker (controller/drone/README.md, "Security"). Pure rules the
// embedded broker's hooks call and the Mosquitto ACL file mirrors (mosquitto.ts writes it).
import { TOPIC_ROOT, agentFilters } from './topics.ts';

export interface AclSubject {
  /** The cluster the connection authenticated as. */
  readonly cluster: string;
}

/** A cluster publishes only under its own id: `edgeshifu/v1/<its id>/...`. */
export function mayPublish(subject: AclSubject, topic: string): boolean {
  return topic.startsWith(`${TOPIC_ROOT}/${subject.cluster}/`) && !topic.includes('+') && !topic.includes('#');
}

/**
 * The broker's owner (its own cluster: agent, relay, resources daemon) may read everything on it;
 * any other cluster reads only federation broadcasts, what is addressed to it and its own local
 * traffic (several clusters may share a broker), never another cluster's local or directed traffic.
 */
export function maySubscribe(subject: AclSubject, filter: string, owner: string): boolean {
  if (subject.cluster === owner) return filter.startsWith(`${TOPIC_ROOT}/`);
  return agentFilters(subject.cluster).includes(filter);
}
