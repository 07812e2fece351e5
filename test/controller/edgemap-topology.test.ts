// The edgeMap feed (controller/edgemap-topology.ts): a device's links wait for their node, follow
// the device's facts, and come back with a node that went and returned; nodes' neighbour links too.
import test from 'ava';
import { EdgeMap } from '../../edgemap/index.ts';
import { EdgeMapTopology } from '../../controller/edgemap-topology.ts';
import { createLogger } from '../../shared/log.ts';

const spec = { protocol: 'HTTP' as const, address: 'x:1' };
const linked = (map: EdgeMap, key: string): string[] => {
  const others: string[] = [];
  map.forEachNeighbour(key, (other, link) => { others.push(`${other} ${link.type}`); });
  return others.sort();
};

test("a device's link waits for its node, and follows where the device is served", (t) => {
  const map = new EdgeMap();
  const topology = new EdgeMapTopology(map, createLogger('test'));
  topology.upsertNode('edge-1', {});
  topology.upsertDevice('devices/t', { spec, nodeName: 'edge-2', links: [{ node: 'edge-1', type: 'USB' }] });
  t.deepEqual(linked(map, 'devices/t'), ['edge-1 USB'], 'edge-2 is not on the map yet');
  topology.upsertNode('edge-2', {});
  t.deepEqual(linked(map, 'devices/t'), ['edge-1 USB', 'edge-2 Ethernet']);
  // moved to edge-1, which sees it by USB: the link to edge-2 goes
  topology.upsertDevice('devices/t', { spec, nodeName: 'edge-1', links: [{ node: 'edge-1', type: 'USB' }] });
  t.deepEqual(linked(map, 'devices/t'), ['edge-1 USB']);
  topology.upsertDevice('devices/t', { spec });
  t.deepEqual(linked(map, 'devices/t'), []);
});

test('a node that goes and comes back gets its devices and neighbours linked again', (t) => {
  const map = new EdgeMap();
  const topology = new EdgeMapTopology(map, createLogger('test'));
  topology.upsertNode('edge-1', {});
  topology.upsertNode('edge-2', { spec: { neighbours: [{ node: 'edge-1', linkType: 'Ethernet', latencyMs: 3 }] } as never });
  topology.upsertDevice('devices/t', { spec, nodeName: 'edge-1' });
  topology.upsertDevice('devices/u', { spec: { ...spec, connection: 'Wireless' }, nodeName: 'edge-1' });
  t.deepEqual(linked(map, 'edge-1'), ['devices/t Ethernet', 'devices/u Wireless', 'edge-2 Ethernet']);
  topology.removeNode('edge-1');
  t.false(map.has('edge-1'));
  t.deepEqual(linked(map, 'devices/t'), []);
  topology.removeDevice('devices/u');
  topology.upsertNode('edge-1', {});
  t.deepEqual(linked(map, 'edge-1'), ['devices/t Ethernet', 'edge-2 Ethernet'], 'a device removed meanwhile is not linked again');
  t.is(map.linkBetween('edge-1', 'edge-2')?.latencyMs, 3);
  // once linked, the device's link is the map's: moving it still unlinks the old node
  topology.upsertNode('edge-3', {});
  topology.upsertDevice('devices/t', { spec, nodeName: 'edge-3' });
  t.deepEqual(linked(map, 'devices/t'), ['edge-3 Ethernet']);
});
