// The hosted namespace's writer under concurrency (a stress test of its ordering, with a recording
// API in place of the server): many components accepted at once for one neighbour, each write
// slowed at random, must leave the quota holding every slice, and a HostRequest that went must
// leave it, in one or two writes, not one per component.
import test from 'ava';
import type { KubernetesObject } from '@kubernetes/client-node';
import { HostedGuard, reservedOf } from '../../controller/offload/hosted-guard.ts';
import type { OffloadApi } from '../../controller/offload/kube.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import type { Informer } from '../../shared/kube/informer.ts';

function request(i: number): HostRequest {
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'HostRequest',
    metadata: { name: `c${String(i)}`, namespace: 'drone-a', annotations: { 'drone.edgeshifu.io/cpu': '100', 'drone.edgeshifu.io/memory': '64', 'drone.edgeshifu.io/pods': '1' } },
    spec: { origin: 'a', app: 'apps.shop.1', component: `c${String(i)}`, requestId: `r${String(i)}`, resources: { cpu: '100m', memory: '64Mi' }, launch: false, leaseSeconds: 60 },
  };
}

function world(): { guard: HostedGuard; cache: HostRequest[]; quota: () => Record<string, string> | undefined; writes: () => number } {
  const cache: HostRequest[] = [];
  let quota: Record<string, string> | undefined;
  let writes = 0;
  const api = {
    apply: async (object: KubernetesObject & { spec?: { hard?: Record<string, string> } }) => {
      // writes overtake one another unless the guard orders them
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      if (object.kind === 'ResourceQuota') {
        quota = object.spec?.hard;
        writes += 1;
      }
      return object;
    },
  } as unknown as OffloadApi;
  const requests = { list: () => [...cache] } as unknown as Informer<HostRequest>;
  const guard = new HostedGuard({ api, requests, policyOf: () => ({ level: 'restricted', images: ['x/'] }), reservedOf });
  return { guard, cache, quota: () => quota, writes: () => writes };
}

test('forty components accepted at once: the quota holds every slice, whatever order the writes land in', async (t) => {
  for (let round = 0; round < 5; round += 1) {
    const w = world();
    const all = Array.from({ length: 40 }, (_, i) => request(i));
    // each is reported to the guard as it is made, before the cache has it; some reach the cache early
    await Promise.all(all.map(async (r, i) => {
      if (i % 3 === 0) w.cache.push(r);
      await w.guard.ensure('a', { request: r, reserved: reservedOf(r) });
    }));
    t.deepEqual(w.quota(), { 'requests.cpu': '4000m', 'requests.memory': '2560Mi', pods: '40' }, `round ${String(round)}`);
    // those that arrived while a write was in flight shared the next one (one write each before)
    t.true(w.writes() <= 2, `round ${String(round)}: ${String(w.writes())} quota writes for forty at once`);
    // the cache catches up: nothing new to write
    w.cache.splice(0, w.cache.length, ...all);
    const before = w.writes();
    await w.guard.ensure('a');
    t.is(w.writes(), before, 'unchanged: not written again');
    // half of them go: the quota follows
    w.cache.splice(0, 20);
    await Promise.all([w.guard.ensure('a'), w.guard.ensure('a')]);
    t.deepEqual(w.quota(), { 'requests.cpu': '2000m', 'requests.memory': '1280Mi', pods: '20' });
  }
});
