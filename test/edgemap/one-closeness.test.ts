// "Closest node" has one answer: for any nodes and any device location, placement and the edgeMap's
// closest-by-location query choose the same node (property test over zones, coordinates and free memory).
import test from 'ava';
import fc from 'fast-check';
import { EdgeMap, closestNodeToLocation } from '../../edgemap/index.ts';
import { place, type PlacementPolicy } from '../../controller/scheduling/placement.ts';
import type { CandidateNode, Location } from '../../controller/scheduling/candidates.ts';

const POLICY: PlacementPolicy = { cooldownMs: 0, betterMemoryRatio: 2, betterDistanceKm: 1 };
const GiB = 2 ** 30;

const location = fc.record({
  zone: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
  latitude: fc.option(fc.integer({ min: 0, max: 3 }).map((x) => 52 + x / 10), { nil: undefined }),
  longitude: fc.constant(13.4),
}).map((l): Location => ({ ...(l.zone === undefined ? {} : { zone: l.zone }), ...(l.latitude === undefined ? {} : { latitude: l.latitude, longitude: l.longitude }) }));

const node = fc.record({ location, freeGi: fc.integer({ min: 1, max: 4 }) });

test('placement and the edgeMap pick the same closest node', (t) => {
  fc.assert(fc.property(fc.array(node, { minLength: 1, maxLength: 6 }), location, (specs, device) => {
    const map = new EdgeMap();
    const candidates: CandidateNode[] = specs.map((s, i) => {
      const name = `node-${String(i)}`;
      map.upsertNode(name, { location: s.location, free: { memory: `${String(s.freeGi)}Gi` } });
      return { name, location: s.location, freeMemory: s.freeGi * GiB, freeCpuMillis: 4000 };
    });
    const placed = place({ location: device, cpuMillis: 100, memory: 1 }, candidates, POLICY, 0);
    const closest = closestNodeToLocation(map, device);
    t.is(placed.kind, 'placed');
    return placed.kind === 'placed' && placed.node === closest?.node;
  }), { numRuns: 300 });
});

test('a nearer node in another zone beats a farther one in the device\'s zone, the zone beats memory when distance is unknown, and memory decides the rest', (t) => {
  const map = new EdgeMap();
  map.upsertNode('far-same-zone', { location: { zone: 'a', latitude: 52.6, longitude: 13.4 }, free: { memory: '8Gi' } });
  map.upsertNode('near-other-zone', { location: { zone: 'b', latitude: 52.52, longitude: 13.4 }, free: { memory: '1Gi' } });
  map.upsertNode('zone-only', { location: { zone: 'a' }, free: { memory: '1Gi' } });
  map.upsertNode('roomy', { free: { memory: '16Gi' } });
  t.like(closestNodeToLocation(map, { zone: 'a', latitude: 52.52, longitude: 13.4 }), { node: 'near-other-zone', basis: 'distance' });
  t.like(closestNodeToLocation(map, { zone: 'a' }), { node: 'far-same-zone', basis: 'zone' }, 'the zone first, then the more free memory');
  t.like(closestNodeToLocation(map, {}), { node: 'roomy', basis: 'none' });
});
