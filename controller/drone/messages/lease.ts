// Lease (issue 8, "Release and clean-up" and "Launch and connect"): the origin renews, for one
// component it placed, the reservation the host holds, and says what to run. Sent periodically,
// so a lost one costs nothing; it carries the whole workload, so a template change (MOD) reaches
// the host by the next lease, and `launch` turns true once the component's boot dependencies run.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const Endpoint = Type.String({ minLength: 3, maxLength: 300, pattern: '^[^\\s:]+:[0-9]{1,5}$', description: 'host:port' });

export const LeaseMessage = message('lease', {
  to: ClusterId,
  app: Name,
  component: Name,
  revision: Type.String({ minLength: 1, maxLength: 64 }),
  workload: Type.Unknown({ description: 'Template, ports and overrides; the host validates it.' }),
  launch: Type.Boolean(),
  dependencies: Type.Record(Type.String({ maxLength: 63 }), Endpoint, { description: 'component -> endpoint of each boot dependency.' }),
  leaseSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
});
export type LeaseMessage = Static<typeof LeaseMessage>;
