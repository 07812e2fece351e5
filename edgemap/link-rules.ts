// Which link types may join which vertex kinds: a remoteCluster is reached over the federation
// bus only, and a Federation link joins a remoteCluster to another one or to the local edgeNode
// that peers with it, never to a device; an Offload link, and only it, joins a component to the
// remoteCluster that runs it.
import { EdgeshifuError } from '../shared/errors.ts';
import type { LinkType, VertexKind } from './model.ts';

export function checkLinkEnds(type: LinkType, a: VertexKind, b: VertexKind, what: string): void {
  const componentEnd = a === 'component' || b === 'component';
  if (type === 'Offload' || componentEnd) {
    const joins = [a, b].sort().join(' and ');
    if (joins === 'component and remoteCluster' && type === 'Offload') return;
    throw new EdgeshifuError('invalid', `${what}: an Offload link joins a component to the remoteCluster that runs it, and a component has no other link (got ${type} between ${a} and ${b})`);
  }
  const clusterEnd = a === 'remoteCluster' || b === 'remoteCluster';
  if (type === 'Federation' && (!clusterEnd || a === 'edgeDevice' || b === 'edgeDevice')) {
    throw new EdgeshifuError('invalid', `${what}: a Federation link joins a remoteCluster to a remoteCluster or an edgeNode (got ${a} and ${b}); use Ethernet, USB, Serial or Wireless`);
  }
  if (type !== 'Federation' && clusterEnd) {
    throw new EdgeshifuError('invalid', `${what}: a remoteCluster is linked by Federation only, not ${type}`);
  }
}
