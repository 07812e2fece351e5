import test from 'ava';
import { EdgeMap, layoutEdgeMap, toSnapshot } from '../../edgemap/index.ts';
import { plant } from './fixtures.ts';

function positions(map: EdgeMap): Map<string, { x: number; y: number }> {
  const { vertices, links } = toSnapshot(map);
  return layoutEdgeMap(vertices, links);
}

test('every vertex gets a finite position and no two share one', (t) => {
  const at = positions(plant());
  t.is(at.size, 8);
  const spots = new Set([...at.values()].map((p) => `${p.x.toFixed(6)},${p.y.toFixed(6)}`));
  t.is(spots.size, 8);
  t.true([...at.values()].every((p) => Number.isFinite(p.x) && Number.isFinite(p.y)));
});

test('devices sit next to the node serving them, nearer to it than to any other node', (t) => {
  const at = positions(plant());
  const distance = (a: string, b: string): number => Math.hypot(at.get(a)!.x - at.get(b)!.x, at.get(a)!.y - at.get(b)!.y);
  for (const [device, node] of [['plant/thermo', 'line-a'], ['plant/arm', 'line-b'], ['annex/press', 'annex']] as const) {
    for (const other of ['line-a', 'line-b', 'annex'].filter((n) => n !== node)) t.true(distance(device, node) < distance(device, other), device);
  }
});

test('the layout is the same whatever order the topology arrived in', (t) => {
  const a = plant();
  const b = new EdgeMap();
  const { vertices, links } = toSnapshot(a);
  for (const v of [...vertices].reverse()) {
    if (v.kind === 'edgeNode') b.upsertNode(v.key, v.attributes);
    if (v.kind === 'edgeDevice') b.upsertDevice(v.key, v.attributes);
    if (v.kind === 'remoteCluster') b.upsertCluster(v.key, v.attributes);
  }
  for (const { source, target, type, ...rest } of [...links].reverse()) b.link(target, source, type, rest);
  t.deepEqual([...positions(a)].sort(), [...positions(b)].sort());
});

test('an empty map lays out to nothing; devices without a node still get places', (t) => {
  t.is(positions(new EdgeMap()).size, 0);
  const map = new EdgeMap();
  map.upsertDevice('p/a');
  map.upsertDevice('p/b', { nodeName: 'not-yet-known' });
  t.is(positions(map).size, 2);
});
