import test from 'ava';
import { EdgeMap, type EdgeMapChange } from '../../edgemap/index.ts';
import { failure, plant } from './fixtures.ts';

function recorder(map: EdgeMap): { changes: EdgeMapChange[]; stop: () => void } {
  const changes: EdgeMapChange[] = [];
  return { changes, stop: map.subscribe((c) => changes.push(c)) };
}

test('an empty edgeMap has no vertices, no links and sequence 0', (t) => {
  const map = new EdgeMap();
  t.is(map.order, 0);
  t.is(map.size, 0);
  t.is(map.seq, 0);
  t.is(map.vertex('line-a'), undefined);
});

test('upserting a node, a device and a cluster stores their attributes and tells subscribers', (t) => {
  const map = new EdgeMap();
  const { changes } = recorder(map);
  t.true(map.upsertNode('line-a', { phase: 'Ready' }));
  t.true(map.upsertDevice('plant/thermo', { nodeName: 'line-a', deviceShifuUrl: 'http://thermo' }));
  t.true(map.upsertCluster('munich', {}));
  t.deepEqual(map.vertex('plant/thermo'), { key: 'plant/thermo', kind: 'edgeDevice', attributes: { nodeName: 'line-a', deviceShifuUrl: 'http://thermo' } });
  t.deepEqual(changes.map((c) => [c.seq, c.op]), [[1, 'vertex-upserted'], [2, 'vertex-upserted'], [3, 'vertex-upserted']]);
  t.deepEqual([...map.keysOf('edgeNode')], ['line-a']);
});

test('an upsert with unchanged attributes emits nothing and returns false', (t) => {
  const map = new EdgeMap();
  map.upsertNode('line-a', { location: { zone: 'a' } });
  const { changes } = recorder(map);
  t.false(map.upsertNode('line-a', { location: { zone: 'a', latitude: undefined } }));
  t.true(map.upsertNode('line-a', { location: { zone: 'b' } }));
  t.deepEqual(changes.map((c) => c.op), ['vertex-upserted']);
});

test('the map keeps its own copy: mutating the caller\'s object later changes nothing', (t) => {
  const map = new EdgeMap();
  const attributes = { location: { zone: 'a' } };
  map.upsertNode('line-a', attributes);
  attributes.location.zone = 'z';
  t.is(map.vertex('line-a')?.attributes.location?.zone, 'a');
});

test('removing a vertex removes its links, emits each, and removing it twice is not an error', (t) => {
  const map = plant();
  const { changes } = recorder(map);
  t.true(map.removeNode('line-a'));
  t.deepEqual(changes.map((c) => c.op), ['link-removed', 'link-removed', 'link-removed', 'vertex-removed']);
  t.false(map.has('line-a'));
  t.is(map.linkBetween('line-b', 'line-a'), undefined);
  t.false(map.removeNode('line-a'), 'second removal');
  t.false(map.removeDevice('plant/nothing'), 'never present');
  t.is(changes.length, 4, 'idempotent removals emit nothing');
});

test('link upserts one undirected link, unlink is idempotent', (t) => {
  const map = plant();
  const { changes } = recorder(map);
  t.false(map.link('line-b', 'line-a', 'Ethernet', { latencyMs: 2, bandwidthMbps: 1000 }), 'same link, other order');
  t.true(map.link('line-b', 'line-a', 'Wireless'));
  t.deepEqual(map.linkBetween('line-a', 'line-b'), { source: 'line-a', target: 'line-b', type: 'Wireless' });
  t.true(map.unlink('line-b', 'line-a'));
  t.false(map.unlink('line-b', 'line-a'));
  t.false(map.unlink('line-b', 'gone'));
  t.deepEqual(changes.map((c) => c.op), ['link-upserted', 'link-removed']);
});

test('a listener that throws does not stop the mutation nor the other listeners', (t) => {
  const errors: unknown[] = [];
  const map = new EdgeMap({ onListenerError: (err) => errors.push(err) });
  map.subscribe(() => { throw new Error('listener bug'); });
  const { changes, stop } = recorder(map);
  t.true(map.upsertNode('line-a'));
  t.is(changes.length, 1);
  t.is(errors.length, 1);
  t.is(map.listenerCount, 2);
  stop();
  stop();
  t.is(map.listenerCount, 1);
});

const badInput: Array<[string, (m: EdgeMap) => unknown, string, RegExp]> = [
  ['an empty node name', (m) => m.upsertNode(''), 'invalid', /non-empty/],
  ['a node name with a slash', (m) => m.upsertNode('a/b'), 'invalid', /without "\/"/],
  ['a device key without namespace', (m) => m.upsertDevice('thermo'), 'invalid', /namespace\/name/],
  ['a device key with a newline', (m) => m.upsertDevice('plant/thermo\n'), 'invalid', /control characters/],
  ['an unknown node phase', (m) => m.upsertNode('n', { phase: 'Running' } as never), 'invalid', /attributes\.phase must be one of/],
  ['a latitude without longitude', (m) => m.upsertNode('n', { location: { latitude: 1 } }), 'invalid', /together/],
  ['a latitude out of range', (m) => m.upsertNode('n', { location: { latitude: 91, longitude: 0 } }), 'invalid', /attributes\.location\.latitude/],
  ['an unknown attribute', (m) => m.upsertDevice('p/d', { colour: 'red' } as never), 'invalid', /attributes\.colour is not a known field/],
  ['a deviceShifu URL that is not http(s)', (m) => m.upsertDevice('p/d', { deviceShifuUrl: 'javascript:alert(1)' }), 'invalid', /deviceShifuUrl/],
  ['a key held by another kind', (m) => m.upsertCluster('line-a'), 'conflict', /already names an edgeNode/],
  ['removing a node as a device', (m) => m.removeDevice('line-a'), 'invalid', /names an edgeNode/],
  ['a link to a missing vertex', (m) => m.link('line-a', 'ghost', 'USB'), 'not-found', /no vertex "ghost"/],
  ['a link to itself', (m) => m.link('line-a', 'line-a', 'USB'), 'invalid', /itself/],
  ['an unknown link type', (m) => m.link('line-a', 'line-b', 'Fibre' as never), 'invalid', /must be one of Ethernet, USB, Serial, Wireless, Federation/],
  ['a negative latency', (m) => m.link('line-a', 'line-b', 'USB', { latencyMs: -1 }), 'invalid', /latencyMs/],
  ['Federation between two nodes', (m) => m.link('line-a', 'line-b', 'Federation'), 'invalid', /joins a remoteCluster/],
  ['Federation to a device', (m) => m.link('munich', 'plant/arm', 'Federation'), 'invalid', /got remoteCluster and edgeDevice/],
  ['Ethernet to a cluster', (m) => m.link('line-a', 'munich', 'Ethernet'), 'invalid', /Federation only/],
];

for (const [what, call, kind, message] of badInput) {
  test(`${what} is refused as ${kind} and leaves the map unchanged`, (t) => {
    const map = plant();
    const seq = map.seq;
    const error = failure(() => call(map));
    t.is(error.kind, kind);
    t.regex(error.message, message);
    t.is(map.seq, seq);
  });
}

test('keysOf lists each kind, devices included, and follows removals', (t) => {
  const map = new EdgeMap();
  map.upsertNode('line-a');
  map.upsertCluster('munich');
  map.upsertDevice('plant/thermo', { nodeName: 'line-a' });
  map.upsertDevice('plant/arm');
  t.deepEqual([...map.keysOf('edgeDevice')].sort(), ['plant/arm', 'plant/thermo']);
  t.deepEqual([...map.keysOf('edgeNode')], ['line-a']);
  t.deepEqual([...map.keysOf('remoteCluster')], ['munich']);
  map.removeDevice('plant/arm');
  map.removeCluster('munich');
  t.deepEqual([...map.keysOf('edgeDevice')], ['plant/thermo']);
  t.deepEqual([...map.keysOf('remoteCluster')], []);
});
