// The pure parts of "Scale" (README): which HostRequest updates are only a stored renewal, and
// how the renewal round spreads deployments over its slots.
import test from 'ava';
import { renewalOnly } from '../../controller/offload/host-plan.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import { resyncSlot } from '../../controller/resync.ts';

const request = (change: { renewed?: string; launch?: boolean; phase?: 'ACCEPTED' | 'LAUNCHED'; deleting?: boolean } = {}): HostRequest => ({
  apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'HostRequest',
  metadata: { name: 'db-1', namespace: 'drone-a', generation: 1, resourceVersion: change.renewed ?? '1', ...(change.deleting === true ? { deletionTimestamp: new Date(0) } : {}) },
  spec: { origin: 'a', app: 'apps.shop.1', component: 'db', requestId: 'r', resources: {}, launch: change.launch ?? true, leaseSeconds: 60 },
  status: { phase: change.phase ?? 'LAUNCHED', ...(change.renewed === undefined ? {} : { lastRenewTime: change.renewed }) },
} as unknown as HostRequest);

test('an update that only moves the stored renewal is not reconciled; any other change is', (t) => {
  t.true(renewalOnly(request({ renewed: '2026-11-27T05:00:00Z' }), request({ renewed: '2026-11-27T05:00:30Z' })));
  t.true(renewalOnly(request(), request({ renewed: '2026-11-27T05:00:30Z' })), 'the first stored renewal too');
  t.false(renewalOnly(undefined, request()), 'a new HostRequest');
  t.false(renewalOnly(request({ launch: false }), request({ launch: true, renewed: '2026-11-27T05:00:30Z' })), 'the origin said go');
  t.false(renewalOnly(request({ phase: 'ACCEPTED' }), request({ phase: 'LAUNCHED' })), 'its status moved');
  t.false(renewalOnly(request(), request({ deleting: true })), 'being deleted');
});

test('the renewal round spreads 300 deployments over its 20 slots, none holding more than a lease burst', (t) => {
  const counts = new Array<number>(20).fill(0);
  for (let i = 0; i < 300; i += 1) {
    const slot = resyncSlot(`apps/app-${String(i)}`, 20);
    t.true(slot >= 0 && slot < 20);
    counts[slot] = (counts[slot] ?? 0) + 1;
  }
  // two leases per app; a host takes 100 at once (`lease=50/100`)
  t.true(Math.max(...counts) * 2 <= 100, `largest slot: ${String(Math.max(...counts))} deployments`);
  t.true(Math.min(...counts) > 0, 'every slot used');
  t.is(resyncSlot('apps/app-1', 1), 0);
});
