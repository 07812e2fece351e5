// The offloading side's reclaim over plain data (controller/offload/reclaim-plan.ts): a `moved`
// decision re-points its component once, whatever the order or repetition of the events; the
// adverts' digest ignores their order; a reclaim that found no move says why; and `movable`
// travels in the lease only when true, so the leases of every other deployment are unchanged.
import test from 'ava';
import { advertsDigest, applyMove, awaitsMove, noRoomCondition, showsMove, type Moved } from '../../controller/offload/reclaim-plan.ts';
import { leasesFor, readyCondition, type Status } from '../../controller/offload/origin-plan.ts';
import { leasedSpec } from '../../controller/offload/host-plan.ts';
import { leaseDigest } from '../../controller/offload/lease-batch.ts';
import type { DroneFederatedDeployment } from '../../controller/offload/workload.ts';
import { twoComponentApp } from './support.ts';

const running: Status = {
  phase: 'RUNNING', app: 'apps.shop.1', attempt: 1, reason: 'every component runs',
  components: [
    { name: 'api', cluster: 'b', app: 'apps.shop.1', phase: 'LAUNCHED', endpoint: '192.0.2.2:30001' },
    { name: 'db', cluster: 'b', app: 'apps.shop.1', phase: 'LAUNCHED', endpoint: '192.0.2.2:30002' },
  ],
};
const move = (over: Partial<Moved> = {}): Moved => ({ type: 'moved', app: 'apps.shop.1', origin: 'a', component: 'db', from: 'b', to: 'c', reason: 'moved to make room for a\'s job', ...over });

test('a move re-points its component, which starts afresh on the new host; the rest stays', (t) => {
  const next = applyMove(running, move(), 'a');
  t.deepEqual(next.components?.[1], { name: 'db', cluster: 'c', app: 'apps.shop.1', phase: 'ASSIGNED', message: 'moved from b to c: moved to make room for a\'s job' });
  t.deepEqual(next.components?.[0], running.components?.[0]);
  t.is(next.phase, 'PENDING');
  t.true(showsMove(next, move()));
  t.false(awaitsMove(next, move()));
  t.true(awaitsMove(running, move()));
  t.is(applyMove(running, move({ to: 'a' }), 'a').components?.[1]?.phase, 'SCHEDULED', 'moved to the origin itself: it runs here');
});

test('a repeated, late or stale move is not acted on twice', (t) => {
  const once = applyMove(running, move(), 'a');
  t.is(applyMove(once, move(), 'a'), once, 'the same move again changes nothing');
  // a second move of the same component, from where the first put it
  const twice = applyMove(once, move({ from: 'c', to: 'd' }), 'a');
  t.is(twice.components?.[1]?.cluster, 'd');
  // the first move heard again after the second (reordered) leaves it on d
  t.is(applyMove(twice, move(), 'a'), twice);
  // a move of the component as an earlier auction placed it: re-placed since, so not applied
  const replaced: Status = { ...running, components: [running.components?.[0] ?? { name: 'api', phase: 'LAUNCHED' }, { name: 'db', cluster: 'b', app: 'apps.shop.2', phase: 'LAUNCHED' }] };
  t.is(applyMove(replaced, move(), 'a'), replaced);
  t.false(awaitsMove(replaced, move()));
  t.false(showsMove(replaced, move()));
});

test('the adverts\' digest depends on what they offer, not on their order', (t) => {
  const b = { cluster: 'b', offered: { cpu: 4000, memory: 4096, pods: 55 } };
  const c = { cluster: 'c', offered: { cpu: 1000, memory: 2048 } };
  t.is(advertsDigest([b, c]), advertsDigest([c, b]));
  t.not(advertsDigest([b, c]), advertsDigest([b, { ...c, offered: { ...c.offered, cpu: 400 } }]));
  t.not(advertsDigest([b]), advertsDigest([b, c]), 'a cluster that joins is a change');
});

test('a deployment that reclaim could not place says why, and what would let a launched component move', (t) => {
  const failed: Status = { phase: 'FAILED', reason: 'reclaim: no placement with at most 3 moves of placed, not launched components' };
  const ready = readyCondition(failed, []);
  t.is(ready.reason, 'NoRoom');
  t.is(ready.message, 'reclaim: no placement with at most 3 moves of placed, not launched components (a launched component moves only when its DroneFederatedDeployment sets spec.movable: true)');
  const later: Status = { phase: 'FAILED', reason: `no cluster could host big; ${failed.reason ?? ''}` };
  t.is(noRoomCondition(later)?.reason, 'NoRoom', 'a later auction\'s failure keeps the reclaim\'s reason');
  t.is(readyCondition({ phase: 'FAILED', reason: 'no cluster could host big' }, []).reason, 'Failed', 'no reclaim yet: a plain failure');
  t.is(noRoomCondition({ phase: 'RUNNING', reason: 'reclaim: x' }), undefined);
});

test('movable travels in the lease only when true; a lease without it digests as before', (t) => {
  const base = twoComponentApp('shop') as unknown as DroneFederatedDeployment;
  const dfd = (movable?: boolean): DroneFederatedDeployment => ({ ...base, metadata: { name: 'shop', namespace: 'apps', uid: 'u', generation: 1 }, spec: { ...base.spec, ...(movable === undefined ? {} : { movable }) } });
  const [plain] = leasesFor(dfd(), running, 'a', 30);
  const [still] = leasesFor(dfd(false), running, 'a', 30);
  const [movable] = leasesFor(dfd(true), running, 'a', 30);
  if (plain === undefined || movable === undefined || still === undefined) throw new Error('no lease');
  t.false('movable' in plain);
  t.false('movable' in still);
  t.true(movable.movable);
  t.is(leaseDigest(plain), leaseDigest({ ...plain, movable: false }), 'existing leases keep their digest');
  t.not(leaseDigest(plain), leaseDigest(movable));
  const msg = { ...movable, v: 1 as const, id: 'm', sender: 'a', timestamp: 1, hops: 0 };
  const stored = { origin: 'a', app: movable.app, component: movable.component, requestId: 'r', resources: { cpu: '500m', memory: '512Mi' }, workload: movable.workload as Record<string, unknown>, revision: movable.revision, launch: movable.launch, dependencies: movable.dependencies, leaseSeconds: 30 };
  t.is(leasedSpec(msg, stored)?.movable, true, 'a host learns it');
  t.is(leasedSpec(msg, { ...stored, movable: true }), undefined, 'then it is no change');
  t.is(leasedSpec({ ...msg, movable: undefined }, stored), undefined, 'not movable, as stored: no change');
});
