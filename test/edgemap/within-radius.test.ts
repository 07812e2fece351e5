import test from 'ava';
import { EdgeMap, nodesWithinRadius } from '../../edgemap/index.ts';
import { failure, plant } from './fixtures.ts';

test('nodes within a radius of a device, nearest first; nodes without coordinates are left out', (t) => {
  const found = nodesWithinRadius(plant(), 'plant/arm', 5);
  t.deepEqual(found.map((n) => n.node), ['line-b', 'line-a']);
  t.true((found[0]?.distanceKm ?? 99) < (found[1]?.distanceKm ?? 0));
});

test('the radius bounds the answer: 0 km only finds a node at the very spot', (t) => {
  const map = plant();
  t.deepEqual(nodesWithinRadius(map, { latitude: 52.52, longitude: 13.40 }, 0).map((n) => n.node), ['line-a']);
  t.deepEqual(nodesWithinRadius(map, { latitude: 48.14, longitude: 11.58 }, 100), []);
  t.deepEqual(nodesWithinRadius(map, 'munich', 600).map((n) => n.node), ['line-a', 'line-b'], 'a remote cluster as the centre');
});

test('equal distances tie to the smaller name; an empty map finds nothing', (t) => {
  const map = new EdgeMap();
  t.deepEqual(nodesWithinRadius(map, { latitude: 0, longitude: 0 }, 1000), []);
  for (const n of ['z', 'm', 'a']) map.upsertNode(n, { location: { latitude: 0, longitude: 1 } });
  t.deepEqual(nodesWithinRadius(map, { latitude: 0, longitude: 0 }, 1000).map((n) => n.node), ['a', 'm', 'z']);
});

const bad: Array<[string, (m: EdgeMap) => unknown, string, RegExp]> = [
  ['a negative radius', (m) => nodesWithinRadius(m, 'line-a', -1), 'invalid', /radius/],
  ['an infinite radius', (m) => nodesWithinRadius(m, 'line-a', Infinity), 'invalid', /radius/],
  ['a centre without coordinates', (m) => nodesWithinRadius(m, 'annex', 10), 'invalid', /"annex" has no latitude\/longitude/],
  ['a removed centre', (m) => { m.removeNode('line-a'); m.removeNode('line-a'); return nodesWithinRadius(m, 'line-a', 10); }, 'not-found', /no vertex/],
  ['a bad location', (m) => nodesWithinRadius(m, { latitude: 100, longitude: 0 }, 10), 'invalid', /latitude/],
];

for (const [what, call, kind, message] of bad) {
  test(`nodesWithinRadius refuses ${what}`, (t) => {
    const error = failure(() => call(plant()));
    t.is(error.kind, kind);
    t.regex(error.message, message);
  });
}
