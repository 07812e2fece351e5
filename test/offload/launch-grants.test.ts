// Launch grants, pure (controller/offload/README.md, "Boot dependencies on one host"): which
// components the origin lets their host start on its own, and that the terms the host writes
// under a grant are the terms the origin's lease says once it hears of the LAUNCHED, so that
// lease writes nothing on the host (one port or several).
import test from 'ava';
import type { ReachablePort } from '../../shared/crds/drone.ts';
import { workloadOf, type DroneFederatedDeployment } from '../../controller/offload/workload.ts';
import { applyDecision, launchGrantsFor, leasesFor, observe, startAuction } from '../../controller/offload/origin-plan.ts';
import { reachOf, type HostRequest } from '../../controller/offload/objects.ts';
import { leasedSpec } from '../../controller/offload/host-plan.ts';
import { grantedTerms, hostedKey } from '../../controller/offload/launch-grants.ts';
import type { LaunchGrantMessage, LeaseMessage } from '../../controller/drone/messages/index.ts';
import { twoComponentApp } from './support.ts';

function dfd(): DroneFederatedDeployment {
  const body = twoComponentApp('shop') as unknown as DroneFederatedDeployment;
  return { ...body, metadata: { name: 'shop', namespace: 'apps', uid: 'u1', generation: 1 }, spec: structuredClone(body.spec) };
}

const envelope = { v: 1 as const, id: 'abcdefgh1', sender: 'a', timestamp: 1, hops: 0 };

function placed(d: DroneFederatedDeployment, api: string, db: string): ReturnType<typeof startAuction> {
  return applyDecision(startAuction(d, {}), { type: 'placed', app: 'apps.shop.1', origin: 'a', placement: { api, db } }, 'a');
}

test('a component is granted to its host only when every boot dependency waits on that same host', (t) => {
  const d = dfd();
  const status = placed(d, 'b', 'b');
  const [grant, ...more] = launchGrantsFor(d, status, 'a');
  t.deepEqual(more, []);
  const lease = leasesFor(d, status, 'a', 30).find((l) => l.component === 'api');
  t.deepEqual(grant, { kind: 'launch-grant', to: 'b', app: 'apps.shop.1', component: 'api', revision: lease?.revision ?? '', after: [{ app: 'apps.shop.1', component: 'db' }] });
  t.deepEqual(launchGrantsFor(d, placed(d, 'b', 'a'), 'a'), [], 'db runs here: the lease says go');
  t.deepEqual(launchGrantsFor(d, placed(d, 'b', 'c'), 'a'), [], 'db on another neighbour: b cannot know when it runs');
  const running = observe(status, new Map([['db', { phase: 'LAUNCHED' as const, endpoint: '192.0.2.2:30100' }]]));
  t.deepEqual(launchGrantsFor(d, running, 'a'), [], 'db LAUNCHED: the lease says go');
  t.deepEqual(launchGrantsFor(d, { ...status, phase: 'DONE' }, 'a'), []);
});

for (const [what, hostPorts] of [
  ['one port', [{ name: 'http', port: 5432, at: 30100, protocol: 'TCP' }]],
  ['two ports', [{ name: 'http', port: 5432, at: 30100, protocol: 'TCP' }, { name: 'metrics', port: 9187, at: 30101, protocol: 'TCP' }]],
] as Array<[string, ReachablePort[]]>) {
  test(`the host's granted terms are the origin's go, to the field (${what})`, (t) => {
    const d = dfd();
    const db = d.spec.components[1];
    if (db === undefined) throw new Error('no db');
    const status = placed(d, 'b', 'b');
    const grant = { ...envelope, ...launchGrantsFor(d, status, 'a')[0] } as LaunchGrantMessage;
    const wait = { ...envelope, ...leasesFor(d, status, 'a', 30).find((l) => l.component === 'api') } as LeaseMessage;
    const dbKey = hostedKey('a', 'apps.shop.1', 'db');
    // b's report of db: the endpoint, and its ports only when there are several (host-status)
    const endpoint = '192.0.2.2:30100';
    t.is(grantedTerms(grant, wait.revision, () => undefined), undefined, 'db not LAUNCHED here yet');
    t.is(grantedTerms(grant, 'other', (k) => (k === dbKey ? { endpoint, ports: hostPorts } : undefined)), undefined, 'a grant of another revision');
    const terms = grantedTerms(grant, wait.revision, (k) => (k === dbKey ? { endpoint, ports: hostPorts } : undefined));
    if (terms === undefined) throw new Error('no terms');
    const heard = hostPorts.length < 2 ? undefined : hostPorts;
    const known = observe(status, new Map([['db', { phase: 'LAUNCHED' as const, endpoint, ports: reachOf(endpoint, heard, workloadOf(d.spec, db).ports).ports }]]));
    const go = { ...envelope, ...leasesFor(d, known, 'a', 30).find((l) => l.component === 'api') } as LeaseMessage;
    t.true(go.launch);
    const spec = { origin: 'a', app: wait.app, component: 'api', requestId: 'r', resources: {}, workload: wait.workload, revision: wait.revision, leaseSeconds: 30, ...terms } as HostRequest['spec'];
    t.is(leasedSpec(go, spec), undefined, 'the origin\'s go changes nothing the grant wrote');
  });
}
