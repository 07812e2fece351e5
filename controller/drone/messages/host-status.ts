// HostStatus (DRONE v2 HostRequest states): the host tells the origin where one hosted
// component stands (ACCEPTED → SCHEDULED → CONNECTED → LAUNCHED, or FAILED/GONE with a reason)
// and where to reach it: the endpoint, and every port of it. Sent on every change and in answer
// to every lease, so a lost one heals.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';
import { Endpoint, ReachablePorts } from './lease.ts';

export const HOST_STATUS_PHASES = ['ACCEPTED', 'SCHEDULED', 'CONNECTED', 'LAUNCHED', 'FAILED', 'GONE'] as const;

export const HostStatusMessage = message('host-status', {
  to: ClusterId,
  app: Name,
  component: Name,
  phase: Type.Union(HOST_STATUS_PHASES.map((p) => Type.Literal(p))),
  endpoint: Type.Optional(Endpoint),
  // every port when there are several; absent (one port, or an older host): the endpoint's port is the first one
  ports: Type.Optional(ReachablePorts),
  revision: Type.Optional(Type.String({ maxLength: 64, description: 'The revision now running.' })),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type HostStatusMessage = Static<typeof HostStatusMessage>;
