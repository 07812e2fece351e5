// LeaseRenewed: the host's one answer to a lease renewal. Per lease it names, where the component
// stands (the host-status it last sent, so a lost one heals), `stale` when its HostRequest holds
// another lease than the digest says (the origin sends the full lease again), or GONE when it
// does not host it. A component the host has not reported yet is left out: its reconcile tells.
// Every renewal gets one: an origin that hears none from a host takes it for an older agent.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';
import { HOST_STATUS_PHASES } from './host-status.ts';
import { Endpoint, ReachablePorts } from './lease.ts';
import { MAX_RENEWALS } from './lease-renewal.ts';

export const RenewedLease = Type.Object({
  app: Name,
  component: Name,
  stale: Type.Optional(Type.Literal(true)),
  phase: Type.Optional(Type.Union(HOST_STATUS_PHASES.map((p) => Type.Literal(p)))),
  endpoint: Type.Optional(Endpoint),
  ports: Type.Optional(ReachablePorts),
  revision: Type.Optional(Type.String({ maxLength: 64 })),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
}, { additionalProperties: false });
export type RenewedLease = Static<typeof RenewedLease>;

export const LeaseRenewedMessage = message('lease-renewed', {
  to: ClusterId,
  // empty when there is nothing to say: the answer itself tells the origin this host takes renewals
  leases: Type.Array(RenewedLease, { maxItems: MAX_RENEWALS }),
});
export type LeaseRenewedMessage = Static<typeof LeaseRenewedMessage>;
