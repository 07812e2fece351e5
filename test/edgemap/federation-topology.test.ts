// The federation on the edgeMap, as the controller feeds it (pure parts, on a real EdgeMap): each
// neighbour from its Federation with the state of the connection, the components this cluster
// offloaded linked to the cluster that runs them, and what the link rules refuse.
import test from 'ava';
import { EdgeMap } from '../../edgemap/index.ts';
import { EdgeMapTopology } from '../../controller/edgemap-topology.ts';
import { clusterFacts, offloadedComponents } from '../../controller/offload/edgemap-feed.ts';
import { findVertex } from '../../edgemap/page/search.ts';
import { listedDevices } from '../../edgemap/page/device-list.ts';
import { createLogger } from '../../shared/log.ts';
import type { Federation } from '../../controller/drone/neighbours.ts';
import type { DroneFederatedDeployment } from '../../controller/offload/workload.ts';

const logger = createLogger('test', { level: 'silent' });

function federation(id: string, connected?: 'True' | 'False'): Federation {
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'Federation', metadata: { name: id },
    spec: { clusterId: id, brokerUrl: `mqtts://${id}.example:8883`, credentialsSecretRef: { name: 's', namespace: 'n' } },
    ...(connected === undefined ? {} : { status: { conditions: [{ type: 'Connected', status: connected, reason: 'r', message: `m ${connected}`, lastTransitionTime: '2026-01-01T00:00:00Z' }] } }),
  };
}

function shop(components: Array<{ name: string; cluster?: string; phase: string; endpoint?: string }>): DroneFederatedDeployment {
  return { apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'DroneFederatedDeployment', metadata: { name: 'shop', namespace: 'apps' }, spec: { components: [] }, status: { components } } as unknown as DroneFederatedDeployment;
}

test('a Federation\'s Connected condition is the neighbour\'s phase: True Peered, False Unreachable, none Unknown', (t) => {
  t.like(clusterFacts(federation('edge-2', 'True')), { phase: 'Peered', broker: 'mqtts://edge-2.example:8883', message: 'm True' });
  t.like(clusterFacts(federation('edge-2', 'False')), { phase: 'Unreachable' });
  t.deepEqual(clusterFacts(federation('edge-2')), { phase: 'Unknown', broker: 'mqtts://edge-2.example:8883' });
});

test('offloaded components are those another cluster runs, not released; those run here are not', (t) => {
  const d = shop([
    { name: 'api', cluster: 'edge-2', phase: 'LAUNCHED', endpoint: '192.0.2.2:30080' },
    { name: 'db', cluster: 'edge-1', phase: 'LAUNCHED' },
    { name: 'cache', phase: 'SCHEDULING' },
    { name: 'old', cluster: 'edge-3', phase: 'RELEASED' },
    { name: 'web', cluster: 'edge-3', phase: 'SCHEDULED' },
  ]);
  t.deepEqual(offloadedComponents(d, 'edge-1'), [
    { component: 'api', cluster: 'edge-2', phase: 'LAUNCHED', endpoint: '192.0.2.2:30080' },
    { component: 'web', cluster: 'edge-3', phase: 'SCHEDULED' },
  ]);
});

test('the topology shows neighbours and links offloaded components to them, whichever arrives first, and follows moves and removals', (t) => {
  const map = new EdgeMap();
  const topology = new EdgeMapTopology(map, logger);
  // the deployment's status arrives before the Federation: the component waits unlinked
  topology.setOffloads('apps/shop', [{ component: 'api', cluster: 'edge-2', phase: 'SCHEDULED' }]);
  t.like(map.vertex('apps/shop/api'), { kind: 'component', attributes: { cluster: 'edge-2', phase: 'SCHEDULED' } });
  t.is(map.linkBetween('apps/shop/api', 'edge-2'), undefined);
  topology.upsertCluster('edge-2', clusterFacts(federation('edge-2', 'True')));
  t.like(map.vertex('edge-2'), { kind: 'remoteCluster', attributes: { phase: 'Peered' } });
  t.is(map.linkBetween('apps/shop/api', 'edge-2')?.type, 'Offload');

  topology.upsertCluster('edge-2', clusterFacts(federation('edge-2', 'False')));
  t.like(map.vertex('edge-2'), { attributes: { phase: 'Unreachable' } });
  t.is(map.linkBetween('apps/shop/api', 'edge-2')?.type, 'Offload', 'a state change keeps the link');

  // moved to edge-3: the link to edge-2 goes, the one to edge-3 comes with edge-3
  topology.setOffloads('apps/shop', [{ component: 'api', cluster: 'edge-3', phase: 'LAUNCHED' }, { component: 'db', cluster: 'edge-2', phase: 'LAUNCHED' }]);
  t.is(map.linkBetween('apps/shop/api', 'edge-2'), undefined);
  t.is(map.linkBetween('apps/shop/db', 'edge-2')?.type, 'Offload');
  topology.upsertCluster('edge-3', clusterFacts(federation('edge-3')));
  t.is(map.linkBetween('apps/shop/api', 'edge-3')?.type, 'Offload');

  // the Federation goes: its vertex and links go, the component stays until its deployment says
  topology.removeCluster('edge-2');
  t.is(map.vertex('edge-2'), undefined);
  t.like(map.vertex('apps/shop/db'), { kind: 'component' });
  topology.setOffloads('apps/shop', []);
  t.is(map.vertex('apps/shop/db'), undefined);
  t.is(map.vertex('apps/shop/api'), undefined);
  t.deepEqual([...map.keysOf('remoteCluster')], ['edge-3']);
});

test('a neighbour whose id is already a node\'s name is logged, not fatal', (t) => {
  const map = new EdgeMap();
  const topology = new EdgeMapTopology(map, logger);
  topology.upsertNode('edge-2', {});
  t.notThrows(() => { topology.upsertCluster('edge-2', { phase: 'Peered' }); });
  t.is(map.vertex('edge-2')?.kind, 'edgeNode');
});

test('an Offload link joins only a component and a remoteCluster; a component takes no other link', (t) => {
  const map = new EdgeMap();
  map.upsertNode('line-a');
  map.upsertDevice('plant/arm');
  map.upsertCluster('edge-2');
  map.upsertComponent('apps/shop/api', { cluster: 'edge-2' });
  t.throws(() => map.link('line-a', 'plant/arm', 'Offload'), { message: /an Offload link joins a component to the remoteCluster/ });
  t.throws(() => map.link('apps/shop/api', 'line-a', 'Ethernet'), { message: /a component has no other link/ });
  t.throws(() => map.link('apps/shop/api', 'edge-2', 'Federation'), { message: /got Federation between component and remoteCluster/ });
  t.throws(() => map.upsertComponent('apps/api', { cluster: 'edge-2' }), { message: /must be namespace\/deployment\/component/ });
  t.true(map.link('apps/shop/api', 'edge-2', 'Offload'));
});

test('the search box finds an exact key, then an exact name, then a part of a key, devices first', (t) => {
  const vertices = [
    { key: 'thermo', kind: 'edgeNode' as const },
    { key: 'liner', kind: 'edgeNode' as const },
    { key: 'plant/thermo', kind: 'edgeDevice' as const },
    { key: 'annex/thermo-2', kind: 'edgeDevice' as const },
    { key: 'plant/arm', kind: 'edgeDevice' as const },
    { key: 'edge-2', kind: 'remoteCluster' as const },
  ];
  t.is(findVertex(vertices, 'plant/thermo'), 'plant/thermo');
  t.is(findVertex(vertices, 'line'), 'liner', 'another kind when no device matches');
  t.is(findVertex(vertices, 'Thermo'), 'plant/thermo', 'a device\'s name before a node of that name');
  t.is(findVertex(vertices, 'ARM'), 'plant/arm');
  t.is(findVertex(vertices, 'therm'), 'annex/thermo-2', 'the first key containing it, devices first');
  t.is(findVertex(vertices, 'edge'), 'edge-2');
  t.is(findVertex(vertices, 'nothing'), undefined);
  t.is(findVertex(vertices, '  '), undefined);
});

test('the side list holds every device with its phase, in key order', (t) => {
  const map = new EdgeMap();
  map.upsertNode('line-a', { phase: 'Ready' });
  map.upsertDevice('plant/thermo', { phase: 'Running' });
  map.upsertDevice('annex/press');
  const vertices: Parameters<typeof listedDevices>[0] = [];
  map.forEachVertex((v) => { (vertices as unknown[]).push(v); });
  t.deepEqual(listedDevices(vertices), [{ key: 'annex/press', phase: 'Unknown' }, { key: 'plant/thermo', phase: 'Running' }]);
});

test('whatever order Federations and deployment statuses arrive in, the map ends as the last facts say (property)', async (t) => {
  const fc = (await import('fast-check')).default;
  const clusters = ['edge-2', 'edge-3', 'edge-4'];
  const step = fc.oneof(
    fc.record({ op: fc.constant('cluster' as const), id: fc.constantFrom(...clusters), phase: fc.constantFrom('Peered' as const, 'Unreachable' as const, 'Unknown' as const) }),
    fc.record({ op: fc.constant('gone' as const), id: fc.constantFrom(...clusters) }),
    fc.record({
      op: fc.constant('offloads' as const), deployment: fc.constantFrom('apps/shop', 'apps/mill'),
      components: fc.uniqueArray(fc.record({ component: fc.constantFrom('api', 'db', 'web'), cluster: fc.constantFrom(...clusters), phase: fc.constantFrom('SCHEDULED' as const, 'LAUNCHED' as const) }), { selector: (c) => c.component, maxLength: 3 }),
    }),
  );
  fc.assert(fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
    const map = new EdgeMap();
    const topology = new EdgeMapTopology(map, logger);
    const present = new Map<string, string>();
    const offloads = new Map<string, Array<{ component: string; cluster: string; phase: 'SCHEDULED' | 'LAUNCHED' }>>();
    for (const s of steps) {
      if (s.op === 'cluster') { topology.upsertCluster(s.id, { phase: s.phase }); present.set(s.id, s.phase); }
      if (s.op === 'gone') { topology.removeCluster(s.id); present.delete(s.id); }
      if (s.op === 'offloads') { topology.setOffloads(s.deployment, s.components); offloads.set(s.deployment, s.components); }
    }
    t.deepEqual([...map.keysOf('remoteCluster')].sort(), [...present.keys()].sort());
    for (const [id, phase] of present) t.is(String(map.vertex(id)?.attributes.phase), phase);
    const wanted = [...offloads].flatMap(([d, list]) => list.map((c) => ({ key: `${d}/${c.component}`, ...c })));
    const components: string[] = [];
    map.forEachVertex((v) => { if (v.kind === 'component') components.push(v.key); });
    t.deepEqual(components.sort(), wanted.map((w) => w.key).sort());
    for (const w of wanted) {
      const links: string[] = [];
      map.forEachNeighbour(w.key, (other, link) => { links.push(`${other}:${link.type}`); });
      t.deepEqual(links, present.has(w.cluster) ? [`${w.cluster}:Offload`] : [], `${w.key} on ${w.cluster}`);
      t.is(map.vertex(w.key)?.attributes.phase, w.phase);
    }
  }), { numRuns: 300 });
});
