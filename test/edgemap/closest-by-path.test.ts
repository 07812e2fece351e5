import test from 'ava';
import { EdgeMap, closestNodeByHops, closestNodeByLatency } from '../../edgemap/index.ts';
import { failure, plant } from './fixtures.ts';

test('by hops: the directly linked node wins', (t) => {
  t.deepEqual(closestNodeByHops(plant(), 'plant/thermo'), { node: 'line-a', hops: 1 });
  t.deepEqual(closestNodeByHops(plant(), 'annex/press'), { node: 'annex', hops: 1 });
});

test('by hops: nodes at the same depth tie to the smaller name', (t) => {
  const map = plant();
  // plant/arm touches line-b directly and line-a through plant/agv: 1 hop beats 2.
  t.deepEqual(closestNodeByHops(map, 'plant/arm'), { node: 'line-b', hops: 1 });
  map.link('plant/arm', 'line-a', 'USB');
  t.deepEqual(closestNodeByHops(map, 'plant/arm'), { node: 'line-a', hops: 1 }, 'line-a < line-b');
});

test('by hops: a path crosses devices and skips ineligible nodes, never a remote cluster', (t) => {
  const map = plant();
  t.deepEqual(closestNodeByHops(map, 'plant/arm', { eligible: (n) => n !== 'line-b' }), { node: 'line-a', hops: 2 });
  const federated = new EdgeMap();
  for (const n of ['gateway', 'far']) federated.upsertNode(n);
  federated.upsertCluster('peer');
  federated.upsertDevice('p/d');
  federated.link('p/d', 'gateway', 'USB');
  federated.link('gateway', 'peer', 'Federation');
  federated.link('peer', 'far', 'Federation');
  const notGateway = { eligible: (n: string): boolean => n !== 'gateway' };
  t.is(closestNodeByHops(federated, 'p/d', notGateway), undefined, 'far is only reachable through the remote cluster');
  t.is(closestNodeByLatency(federated, 'p/d', notGateway), undefined);
  federated.upsertDevice('p/lonely');
  t.is(closestNodeByHops(federated, 'p/lonely'), undefined, 'isolated device');
});

test('by latency: the least summed latency wins over fewer hops', (t) => {
  const map = plant();
  // arm -> line-b is one 8 ms Wireless hop; arm -> agv -> line-a is 1 ms + unmeasured (1 ms).
  t.deepEqual(closestNodeByLatency(map, 'plant/arm'), { node: 'line-a', latencyMs: 2, hops: 2 });
  t.deepEqual(closestNodeByLatency(map, 'plant/arm', { unmeasuredLatencyMs: 10 }), { node: 'line-b', latencyMs: 8, hops: 1 });
});

test('by latency: equal latency ties to fewer hops, then to the smaller name', (t) => {
  const map = new EdgeMap();
  for (const n of ['n-b', 'n-a', 'n-c']) map.upsertNode(n);
  map.upsertDevice('p/d');
  map.upsertDevice('p/relay');
  map.link('p/d', 'n-b', 'USB', { latencyMs: 2 });
  map.link('p/d', 'p/relay', 'Serial', { latencyMs: 1 });
  map.link('p/relay', 'n-a', 'Ethernet', { latencyMs: 1 });
  t.deepEqual(closestNodeByLatency(map, 'p/d'), { node: 'n-b', latencyMs: 2, hops: 1 }, 'fewer hops');
  map.link('p/d', 'n-c', 'USB', { latencyMs: 2 });
  map.unlink('p/d', 'n-b');
  map.link('p/d', 'n-b', 'Wireless', { latencyMs: 2 });
  t.deepEqual(closestNodeByLatency(map, 'p/d'), { node: 'n-b', latencyMs: 2, hops: 1 }, 'n-b < n-c');
});

test('by latency: removed vertices, wrong kinds and bad options are refused', (t) => {
  const map = plant();
  map.removeDevice('plant/arm');
  t.false(map.removeDevice('plant/arm'));
  t.is(failure(() => closestNodeByLatency(map, 'plant/arm')).kind, 'not-found');
  t.is(failure(() => closestNodeByHops(map, 'plant/arm')).kind, 'not-found');
  t.is(failure(() => closestNodeByLatency(map, 'line-a')).kind, 'invalid');
  const bad = failure(() => closestNodeByLatency(map, 'plant/agv', { unmeasuredLatencyMs: -1 }));
  t.is(bad.kind, 'invalid');
  t.regex(bad.message, /unmeasuredLatencyMs/);
  map.removeNode('line-a');
  t.deepEqual(closestNodeByLatency(map, 'plant/thermo'), undefined, 'its only node was removed');
});
