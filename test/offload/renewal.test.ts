// The pure part of "Scale" (README): which HostRequest updates are only a stored renewal (a host
// of an earlier version still writes `status.lastRenewTime`).
import test from 'ava';
import { renewalOnly } from '../../controller/offload/host-plan.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';

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
