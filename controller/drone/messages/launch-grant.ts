// LaunchGrant (controller/offload/README.md, "Boot dependencies on one host"): the origin lets a
// host start a component on its own once the boot dependencies it also hosts for that origin are
// LAUNCHED there, reached where the host runs them. Without it, a dependency's LAUNCHED went host
// → origin → lease → host before the component could start. Sent once, with the lease that says
// wait; lost or refused (an older host does not know the kind), the lease that says go still comes.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const LaunchGrantMessage = message('launch-grant', {
  to: ClusterId,
  app: Name,
  component: Name,
  revision: Type.String({ minLength: 1, maxLength: 64, description: 'The revision the grant is for: a host holding another does not act on it.' }),
  after: Type.Array(Type.Object({ app: Name, component: Name }, { additionalProperties: false }), { minItems: 1, maxItems: 64, description: 'Every boot dependency, each hosted by the same host for the same origin.' }),
});
export type LaunchGrantMessage = Static<typeof LaunchGrantMessage>;
