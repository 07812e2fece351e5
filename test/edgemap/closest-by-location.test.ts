import test from 'ava';
import { EdgeMap, closestNodeByLocation, closestNodeToLocation, haversineKm, rankNodesByLocation, type Location, type NodeAttributes } from '../../edgemap/index.ts';
import { failure, plant } from './fixtures.ts';

test('haversine gives the known Berlin-Munich great-circle distance', (t) => {
  const km = haversineKm({ latitude: 52.52, longitude: 13.405 }, { latitude: 48.137, longitude: 11.575 });
  t.true(Math.abs(km - 504) < 2, String(km));
});

const nodes: Array<[string, NodeAttributes]> = [
  ['zone-far', { location: { zone: 'a', latitude: 52.60, longitude: 13.40 } }],
  ['zone-near', { location: { zone: 'a', latitude: 52.521, longitude: 13.40 } }],
  ['zone-only', { location: { zone: 'a' } }],
  ['coords-near', { location: { zone: 'b', latitude: 52.5201, longitude: 13.40 } }],
  ['coords-far', { location: { latitude: 53.0, longitude: 13.40 } }],
  ['unknown', {}],
];

function site(): EdgeMap {
  const map = new EdgeMap();
  for (const [name, attributes] of nodes) map.upsertNode(name, attributes);
  return map;
}

// The one closeness ranking (edgemap/closeness.ts), row by row: distance, then zone, then free memory, then name.
const cases: Array<[string, Location, string[]]> = [
  ['every known distance first, nearest first, whatever the zone; then the device\'s zone; then by name', { zone: 'a', latitude: 52.52, longitude: 13.40 },
    ['coords-near', 'zone-near', 'zone-far', 'coords-far', 'zone-only', 'unknown']],
  ['without a zone only distance counts', { latitude: 52.52, longitude: 13.40 },
    ['coords-near', 'zone-near', 'zone-far', 'coords-far', 'unknown', 'zone-only']],
  ['a zone without coordinates ranks its zone first, the rest by name', { zone: 'a' },
    ['zone-far', 'zone-near', 'zone-only', 'coords-far', 'coords-near', 'unknown']],
  ['nothing known: every node by name', {},
    ['coords-far', 'coords-near', 'unknown', 'zone-far', 'zone-near', 'zone-only']],
];

for (const [what, location, order] of cases) {
  test(`ranking by location: ${what}`, (t) => {
    const map = site();
    t.deepEqual(rankNodesByLocation(map, location).map((r) => r.node), order);
    t.is(closestNodeToLocation(map, location)?.node, order[0]);
  });
}

test('the answer says what it was based on, so the scheduler can fall back', (t) => {
  const map = site();
  t.like(closestNodeToLocation(map, { zone: 'a', latitude: 52.52, longitude: 13.40 }), { node: 'coords-near', basis: 'distance' });
  t.like(closestNodeToLocation(map, { zone: 'a' }), { node: 'zone-far', basis: 'zone' });
  t.like(closestNodeToLocation(map, { latitude: 52.52, longitude: 13.40 }), { node: 'coords-near', basis: 'distance' });
  t.deepEqual(closestNodeToLocation(map, {}), { node: 'coords-far', basis: 'none' });
  const near = closestNodeToLocation(map, { latitude: 52.52, longitude: 13.40 });
  t.true((near?.distanceKm ?? 99) < 0.1);
});

test('equal distances tie to the smaller name, whatever the insertion order', (t) => {
  for (const names of [['b', 'a', 'c'], ['c', 'b', 'a']]) {
    const map = new EdgeMap();
    for (const n of names) map.upsertNode(n, { location: { latitude: 10, longitude: n === 'c' ? 11 : 10 } });
    t.is(closestNodeToLocation(map, { latitude: 10, longitude: 10 })?.node, 'a');
  }
});

test('eligible filters candidates, e.g. only Ready nodes', (t) => {
  const map = plant();
  const ready = (_: string, a: NodeAttributes): boolean => a.phase === 'Ready';
  t.is(closestNodeToLocation(map, { zone: 'c' })?.node, 'annex');
  t.is(closestNodeToLocation(map, { zone: 'c' }, { eligible: ready })?.node, 'line-a');
  t.is(closestNodeToLocation(map, {}, { eligible: () => false }), undefined);
  t.is(failure(() => closestNodeToLocation(map, {}, { eligible: 'Ready' as never })).kind, 'invalid');
});

test('closest node to a device uses the device location; empty, removed and wrong-kind inputs', (t) => {
  const map = plant();
  t.like(closestNodeByLocation(map, 'plant/arm'), { node: 'line-b', basis: 'distance' });
  t.like(closestNodeByLocation(map, 'plant/thermo'), { node: 'line-a', basis: 'zone' });
  for (const node of ['line-a', 'line-b', 'annex']) map.removeNode(node);
  t.is(closestNodeByLocation(map, 'plant/arm'), undefined, 'no nodes left');
  map.removeDevice('plant/arm');
  map.removeDevice('plant/arm');
  t.is(failure(() => closestNodeByLocation(map, 'plant/arm')).kind, 'not-found');
  t.is(failure(() => closestNodeByLocation(map, 'munich')).kind, 'invalid');
  t.is(closestNodeToLocation(new EdgeMap(), { zone: 'a' }), undefined, 'empty map');
});

const badLocations: Array<[string, unknown, RegExp]> = [
  ['not an object', 'Berlin', /must be an object/],
  ['latitude out of range', { latitude: -91, longitude: 0 }, /latitude must be a number in \[-90, 90\]/],
  ['longitude not a number', { latitude: 0, longitude: '13' }, /longitude must be a number/],
  ['latitude alone', { latitude: 0 }, /together/],
  ['zone not a string', { zone: 7 }, /zone must be a string/],
];

for (const [what, location, message] of badLocations) {
  test(`a location query refuses a location with ${what}`, (t) => {
    const error = failure(() => closestNodeToLocation(site(), location as Location));
    t.is(error.kind, 'invalid');
    t.regex(error.message, message);
  });
}
