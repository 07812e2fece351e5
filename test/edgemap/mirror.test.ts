import test from 'ava';
import { toSnapshot, type EdgeMapChange } from '../../edgemap/index.ts';
import { Mirror } from '../../edgemap/page/mirror.ts';
import { PHASE_COLOURS } from '../../edgemap/style.ts';
import { plant } from './fixtures.ts';

test('the page mirror follows a snapshot and then the changes, in order', (t) => {
  const map = plant();
  const mirror = new Mirror();
  mirror.load(toSnapshot(map));
  const changes: EdgeMapChange[] = [];
  map.subscribe((c) => changes.push(c));
  map.upsertDevice('plant/agv', { phase: 'Failed', nodeName: 'line-a' });
  map.removeNode('line-b');
  t.deepEqual(changes.map((c) => mirror.apply(c)), changes.map(() => 'applied'));
  mirror.layout();
  t.is(mirror.seq, map.seq);
  t.deepEqual(mirror.graph.nodes().sort(), toSnapshot(map).vertices.map((v) => v.key));
  t.is(mirror.graph.size, map.size);
  t.is(mirror.graph.getNodeAttributes('plant/agv').color, PHASE_COLOURS.edgeDevice.Failed);
});

test('the mirror ignores a change it already has and reports a gap when one is missing', (t) => {
  const map = plant();
  const mirror = new Mirror();
  mirror.load(toSnapshot(map));
  const changes: EdgeMapChange[] = [];
  map.subscribe((c) => changes.push(c));
  map.upsertNode('line-c');
  map.upsertNode('line-d');
  const [first, second] = changes;
  t.is(mirror.apply(second!), 'gap');
  t.false(mirror.graph.hasNode('line-d'), 'nothing applied past a gap');
  t.is(mirror.apply(first!), 'applied');
  t.is(mirror.apply(first!), 'stale');
  t.is(mirror.apply(second!), 'applied');
  t.true(mirror.graph.hasNode('line-d'));
});
