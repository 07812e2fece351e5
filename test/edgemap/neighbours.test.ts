import test from 'ava';
import { EdgeMap, connectedComponents, devicesServedBy, linkType, neighbours } from '../../edgemap/index.ts';
import { failure, plant } from './fixtures.ts';

test('neighbours lists each linked vertex with its kind and link, sorted by key', (t) => {
  t.deepEqual(neighbours(plant(), 'line-a').map((n) => [n.key, n.kind, n.link.type]), [
    ['line-b', 'edgeNode', 'Ethernet'],
    ['plant/agv', 'edgeDevice', 'Ethernet'],
    ['plant/thermo', 'edgeDevice', 'USB'],
  ]);
});

test('a vertex without links has no neighbours; a removed one is not found', (t) => {
  const map = plant();
  map.upsertNode('spare');
  t.deepEqual(neighbours(map, 'spare'), []);
  map.removeNode('spare');
  map.removeNode('spare');
  t.is(failure(() => neighbours(map, 'spare')).kind, 'not-found');
  t.is(failure(() => neighbours(new EdgeMap(), 'spare')).kind, 'not-found', 'empty map');
  t.is(failure(() => neighbours(map, 42 as never)).kind, 'invalid');
});

test('linkType answers the type either way round, undefined when not linked', (t) => {
  const map = plant();
  t.is(linkType(map, 'plant/thermo', 'line-a'), 'USB');
  t.is(linkType(map, 'line-a', 'plant/thermo'), 'USB');
  t.is(linkType(map, 'munich', 'line-b'), 'Federation');
  t.is(linkType(map, 'line-a', 'annex'), undefined);
  map.unlink('line-a', 'plant/thermo');
  t.is(linkType(map, 'line-a', 'plant/thermo'), undefined);
  map.removeDevice('plant/thermo');
  const gone = failure(() => linkType(map, 'line-a', 'plant/thermo'));
  t.is(gone.kind, 'not-found');
  t.regex(gone.message, /linkType: no vertex "plant\/thermo"/);
});

test('devicesServedBy lists the devices placed on a node, sorted, whatever the links say', (t) => {
  const map = plant();
  t.deepEqual(devicesServedBy(map, 'line-a'), ['plant/agv', 'plant/thermo']);
  map.upsertNode('idle');
  t.deepEqual(devicesServedBy(map, 'idle'), []);
  map.removeDevice('plant/agv');
  t.deepEqual(devicesServedBy(map, 'line-a'), ['plant/thermo']);
  t.is(failure(() => devicesServedBy(map, 'plant/thermo')).kind, 'invalid', 'a device is not a node');
  map.removeNode('line-a');
  t.is(failure(() => devicesServedBy(map, 'line-a')).kind, 'not-found');
});

test('connected components show a partitioned site, largest first', (t) => {
  const map = plant();
  t.deepEqual(connectedComponents(map), [
    ['line-a', 'line-b', 'munich', 'plant/agv', 'plant/arm', 'plant/thermo'],
    ['annex', 'annex/press'],
  ]);
  map.link('annex', 'line-a', 'Ethernet');
  t.is(connectedComponents(map).length, 1, 'the uplink joins the annex');
  map.removeNode('line-a');
  t.deepEqual(connectedComponents(map), [
    ['line-b', 'munich', 'plant/agv', 'plant/arm'],
    ['annex', 'annex/press'],
    ['plant/thermo'],
  ]);
});

test('connected components of an empty map is an empty list; equal sizes order by first key', (t) => {
  const map = new EdgeMap();
  t.deepEqual(connectedComponents(map), []);
  map.upsertNode('b');
  map.upsertNode('a');
  t.deepEqual(connectedComponents(map), [['a'], ['b']]);
});
