// The plain-data parts of `npm start -- --clusters 2` (test/support/localstack/federation.ts): the
// progress line, the demo app's premise (too big for edge-1's node, fits edge-2's share), and
// where the broker password goes.
import test from 'ava';
import { cpuMillis, parseQuantity } from '../../shared/kube/quantity.ts';
import { resourcesOf, workloadOf } from '../../controller/offload/workload.ts';
import { workloadViolations } from '../../controller/offload/admission.ts';
import type { FederatedComponent } from '../../shared/crds/drone.ts';
import { DEMO_IMAGES, demoManifests, droneArgs, droneEnv, offloadLine, ROOMY_NODE, SMALL_NODE } from '../support/localstack/federation.ts';

test('the progress line names the phase, and each component\'s cluster, phase and endpoint once known', (t) => {
  t.is(offloadLine({ metadata: { name: 'shop' } }), 'offload shop: (no status yet)');
  t.is(offloadLine({ metadata: { name: 'shop' }, status: { phase: 'PENDING', components: [
    { name: 'db', cluster: 'edge-2', phase: 'LAUNCHED', endpoint: '10.0.0.1:30001' }, { name: 'api', phase: 'SCHEDULING' },
  ] } }), 'offload shop: PENDING  db → edge-2 LAUNCHED (10.0.0.1:30001), api → ? SCHEDULING');
  t.is(offloadLine({ metadata: { name: 'shop' }, status: { phase: 'FAILED', reason: 'no cluster has room for db' } }), 'offload shop: FAILED — no cluster has room for db');
});

test('every demo component is larger than edge-1\'s node, and the app fits in the share edge-2 offers (half its free capacity)', (t) => {
  const dfd = demoManifests().find((o) => o.kind === 'DroneFederatedDeployment') as { spec: { components: FederatedComponent[] } } | undefined;
  const components = dfd?.spec.components ?? [];
  t.deepEqual(components.map((c) => [c.name, c.bootDependencies ?? []]), [['db', []], ['api', ['db']]]);
  const small = { cpu: cpuMillis(SMALL_NODE.cpu), memory: parseQuantity(SMALL_NODE.memory) / 2 ** 20 };
  const total = { cpu: 0, memory: 0 };
  for (const c of components) {
    const r = resourcesOf(c, c.name);
    t.true(r.cpu > small.cpu || r.memory > small.memory, `${c.name} cannot run on edge-1`);
    total.cpu += r.cpu;
    total.memory += r.memory;
  }
  t.true(total.cpu <= cpuMillis(ROOMY_NODE.cpu) / 2 && total.memory <= parseQuantity(ROOMY_NODE.memory) / 2 ** 20 / 2);
});

test('the broker password goes to the controller\'s environment, never its arguments', (t) => {
  const member = { id: 'edge-1', password: 'not-in-argv-123', brokerPort: 21883 };
  t.false(droneArgs(member).join(' ').includes(member.password));
  t.deepEqual(droneArgs(member), ['--drone-cluster', 'edge-1', '--drone-users-secret', 'edgeshifu-system/edgeshifu-drone-users', '--drone-broker-listen', '127.0.0.1:21883']);
  t.deepEqual(droneEnv(member), { EDGESHIFU_DRONE_PASSWORD: member.password });
});

test('the demo app is what each member\'s Federation lets its neighbour run: its images, under Pod Security restricted', (t) => {
  const dfd = demoManifests().find((o) => o.kind === 'DroneFederatedDeployment') as { spec: { components: FederatedComponent[] } } | undefined;
  const spec = dfd?.spec ?? { components: [] };
  for (const c of spec.components) {
    t.deepEqual(workloadViolations(workloadOf(spec, c), { cluster: 'edge-2', policy: { level: 'restricted', images: [...DEMO_IMAGES] }, clusterImages: [] }), [], c.name);
  }
});
