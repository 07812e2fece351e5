// What the federation shows on the edgeMap: each neighbour from its Federation, with the state of
// the connection (its Connected condition), and the components this cluster offloaded, from the
// status of their DroneFederatedDeployment (each component's `cluster`). Pure facts plus the
// informer wiring that hands them to the controller's Topology.
import type { Informer } from '../../shared/kube/informer.ts';
import { objectKey } from '../../shared/kube/informer.ts';
import type { ClusterFacts, OffloadFacts, Topology } from '../topology.ts';
import type { Federation } from '../drone/neighbours.ts';
import type { DroneFederatedDeployment } from './workload.ts';

/** A neighbour's vertex: Peered while its adverts arrive, Unreachable when they stopped, else Unknown. */
export function clusterFacts(federation: Federation): ClusterFacts {
  const connected = federation.status?.conditions?.find((c) => c.type === 'Connected');
  const phase = connected?.status === 'True' ? 'Peered' : connected?.status === 'False' ? 'Unreachable' : 'Unknown';
  const message = connected?.message === undefined || connected.message === '' ? undefined : connected.message.slice(0, 1024);
  return { phase, broker: federation.spec.brokerUrl, ...(message === undefined ? {} : { message }) };
}

/** The components a neighbour runs for this cluster (`self`): a cluster other than self, not released. */
export function offloadedComponents(deployment: DroneFederatedDeployment, self: string): OffloadFacts[] {
  return (deployment.status?.components ?? [])
    .filter((c): c is typeof c & { cluster: string } => c.cluster !== undefined && c.cluster !== self && c.phase !== 'RELEASED')
    .map((c) => ({ component: c.name, cluster: c.cluster, phase: c.phase, ...(c.endpoint === undefined ? {} : { endpoint: c.endpoint }) }));
}

/** Feeds `topology` from the two caches now and on every change. */
export function feedEdgeMap(topology: Topology, federations: Informer<Federation>, deployments: Informer<DroneFederatedDeployment>, self: string): void {
  const putCluster = (f: Federation): void => { topology.upsertCluster(f.spec.clusterId, clusterFacts(f)); };
  const putDeployment = (d: DroneFederatedDeployment): void => { topology.setOffloads(objectKey(d), offloadedComponents(d, self)); };
  for (const f of federations.list()) putCluster(f);
  for (const d of deployments.list()) putDeployment(d);
  federations.on('add', putCluster);
  federations.on('update', (f, _key, old) => {
    if (old !== undefined && old.spec.clusterId !== f.spec.clusterId) topology.removeCluster(old.spec.clusterId);
    putCluster(f);
  });
  federations.on('delete', (f) => { topology.removeCluster(f.spec.clusterId); });
  deployments.on('add', putDeployment);
  deployments.on('update', putDeployment);
  deployments.on('delete', (d) => { topology.setOffloads(objectKey(d), []); });
}
