import test from 'ava';
import fc from 'fast-check';
import { EdgeMap, restoreEdgeMap, toSnapshot, type EdgeMapSnapshot } from '../../edgemap/index.ts';
import { failure, plant } from './fixtures.ts';

test('a snapshot restores to an equal map that continues the same numbering', (t) => {
  const map = plant();
  const snapshot = JSON.parse(JSON.stringify(toSnapshot(map))) as EdgeMapSnapshot;
  const restored = restoreEdgeMap(snapshot);
  t.deepEqual(toSnapshot(restored), snapshot);
  t.is(restored.seq, map.seq);
  t.is(restored.order, 8);
  t.is(restored.size, 7);
  t.deepEqual([...restored.keysOf('edgeNode')].sort(), [...map.keysOf('edgeNode')].sort(), 'indexes rebuilt');
  const heard: number[] = [];
  restored.subscribe((c) => heard.push(c.seq));
  restored.removeDevice('plant/agv');
  t.deepEqual(heard, [map.seq + 1, map.seq + 2, map.seq + 3]);
});

test('an empty map round-trips', (t) => {
  const snapshot = toSnapshot(new EdgeMap());
  t.deepEqual(snapshot, { version: 1, seq: 0, vertices: [], links: [] });
  t.deepEqual(toSnapshot(restoreEdgeMap(snapshot)), snapshot);
});

test('snapshots are sorted, so insertion order does not matter', (t) => {
  const a = new EdgeMap();
  const b = new EdgeMap();
  a.upsertNode('x');
  a.upsertNode('y');
  a.link('x', 'y', 'USB');
  b.upsertNode('y');
  b.upsertNode('x');
  b.link('y', 'x', 'USB');
  t.deepEqual(toSnapshot(a), toSnapshot(b));
});

test('any map built from random operations round-trips through JSON', (t) => {
  const op = fc.oneof(
    fc.record({ op: fc.constant('node' as const), n: fc.integer({ min: 0, max: 5 }), zone: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }) }),
    fc.record({ op: fc.constant('device' as const), n: fc.integer({ min: 0, max: 5 }), node: fc.integer({ min: 0, max: 5 }) }),
    fc.record({ op: fc.constant('link' as const), a: fc.integer({ min: 0, max: 11 }), b: fc.integer({ min: 0, max: 11 }), latency: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: undefined }) }),
    fc.record({ op: fc.constant('remove' as const), a: fc.integer({ min: 0, max: 11 }) }),
  );
  const key = (i: number): string => (i < 6 ? `node-${i}` : `ns/dev-${i - 6}`);
  fc.assert(fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
    const map = new EdgeMap();
    for (const o of ops) {
      if (o.op === 'node') map.upsertNode(key(o.n), o.zone === undefined ? {} : { location: { zone: o.zone } });
      if (o.op === 'device') map.upsertDevice(key(o.n + 6), { nodeName: key(o.node) });
      if (o.op === 'link' && o.a !== o.b && map.has(key(o.a)) && map.has(key(o.b))) map.link(key(o.a), key(o.b), 'Ethernet', o.latency === undefined ? {} : { latencyMs: o.latency });
      if (o.op === 'remove' && o.a < 6) map.removeNode(key(o.a));
      if (o.op === 'remove' && o.a >= 6) map.removeDevice(key(o.a));
    }
    const snapshot = JSON.parse(JSON.stringify(toSnapshot(map))) as EdgeMapSnapshot;
    t.deepEqual(toSnapshot(restoreEdgeMap(snapshot)), snapshot);
  }), { numRuns: 200 });
  t.pass();
});

const good = (): Record<string, unknown> => JSON.parse(JSON.stringify(toSnapshot(plant()))) as Record<string, unknown>;
const broken: Array<[string, (s: Record<string, unknown>) => unknown, RegExp]> = [
  ['not an object', () => 'edgemap', /edgeMap snapshot is invalid/],
  ['an unknown version', (s) => ({ ...s, version: 2 }), /snapshot\.version/],
  ['a negative seq', (s) => ({ ...s, seq: -1 }), /snapshot\.seq/],
  ['an unknown vertex kind', (s) => ({ ...s, vertices: [{ key: 'x', kind: 'switch', attributes: {} }] }), /snapshot\.vertices\.0\.kind must be one of/],
  ['bad vertex attributes', (s) => ({ ...s, links: [], vertices: [{ key: 'x', kind: 'edgeNode', attributes: { phase: 'Up' } }] }), /vertices\[0\].*attributes\.phase/],
  ['a duplicate vertex', (s) => ({ ...s, links: [], vertices: [{ key: 'x', kind: 'edgeNode', attributes: {} }, { key: 'x', kind: 'edgeNode', attributes: {} }] }), /vertices\[1\]: "x" appears twice/],
  ['a link to a vertex not in it', (s) => ({ ...s, links: [{ source: 'ghost', target: 'line-a', type: 'USB' }] }), /links\[0\].*no vertex "ghost"/],
  ['a duplicate link', (s) => ({ ...s, links: [...(s.links as unknown[]), (s.links as unknown[])[0]] }), /links\[7\].*appears twice/],
];

for (const [what, mutate, message] of broken) {
  test(`restoring a snapshot with ${what} is refused as invalid`, (t) => {
    const error = failure(() => restoreEdgeMap(mutate(good())));
    t.is(error.kind, 'invalid');
    t.regex(error.message, message);
  });
}
