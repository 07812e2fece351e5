// LeaseRenewal (controller/offload/README.md, "Leases"): the origin renews, in one message per
// host and round, every lease that host holds for it. Each entry names a component and the
// digest of the lease it last sent in full (`lease`, on every change); a host whose HostRequest
// says something else answers that entry `stale`, and the origin sends that component's full
// lease again. So a lost full lease still heals by the next round, at one message per host.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

/** Most leases one renewal names (a host holding more gets several): 1,000 of the longest names stay under the bus's 1 MiB payload bound. */
export const MAX_RENEWALS = 1000;

export const LeaseDigest = Type.String({ minLength: 8, maxLength: 32, pattern: '^[A-Za-z0-9_-]+$', description: 'leaseDigest of the lease last sent in full (controller/offload/lease-batch.ts).' });

export const LeaseRenewalMessage = message('lease-renewal', {
  to: ClusterId,
  leaseSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  leases: Type.Array(Type.Object({ app: Name, component: Name, digest: LeaseDigest }, { additionalProperties: false }), { minItems: 1, maxItems: MAX_RENEWALS }),
});
export type LeaseRenewalMessage = Static<typeof LeaseRenewalMessage>;
