// Lease (controller/offload/README.md, "How it works"): the origin says, for one component it
// placed, what the host should run, and renews its reservation. Sent when that changes; a lost
// one heals by the next renewal round (lease-renewal.ts: the host says `stale`). It carries the
// whole workload, so a template change (MOD) reaches the host with it, and `launch` turns true
// once the component's boot dependencies run, with where each one is reached (its endpoint, and
// every port of it).
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const Endpoint = Type.String({ minLength: 3, maxLength: 300, pattern: '^[^\\s:]+:[0-9]{1,5}$', description: 'host:port' });

const PortNumber = Type.Integer({ minimum: 1, maximum: 65_535 });

/** One port of a component as a neighbour reaches it: callers' `port`, at `at` (a NodePort) on the endpoint's host. */
export const ReachablePort = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }),
  port: PortNumber,
  at: PortNumber,
  protocol: Type.Optional(Type.Union([Type.Literal('TCP'), Type.Literal('UDP')])),
}, { additionalProperties: false });
export const ReachablePorts = Type.Array(ReachablePort, { minItems: 1, maxItems: 16 });

export const LeaseMessage = message('lease', {
  to: ClusterId,
  app: Name,
  component: Name,
  revision: Type.String({ minLength: 1, maxLength: 64 }),
  workload: Type.Unknown({ description: 'Template, ports and overrides; the host validates it.' }),
  launch: Type.Boolean(),
  dependencies: Type.Record(Type.String({ maxLength: 63 }), Endpoint, { description: 'component -> endpoint of each boot dependency.' }),
  // absent from an older origin: the host then makes no Service for its dependencies
  dependencyPorts: Type.Optional(Type.Record(Type.String({ maxLength: 63 }), ReachablePorts, { description: 'component -> every port of each boot dependency, at its endpoint\'s host: the host makes a Service of that name.' })),
  leaseSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  // sent only when true: an older host refuses a field it does not know
  movable: Type.Optional(Type.Boolean({ description: 'The deployment lets reclaim move this component once launched (spec.movable).' })),
});
export type LeaseMessage = Static<typeof LeaseMessage>;
