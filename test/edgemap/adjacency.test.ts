import test from 'ava';
import { Adjacency } from '../../edgemap/adjacency.ts';
import type { Link } from '../../edgemap/model.ts';

const link = (source: string, target: string, latencyMs?: number): Link =>
  ({ source, target, type: 'Ethernet', ...(latencyMs === undefined ? {} : { latencyMs }) });

const neighbours = (links: Adjacency, key: string): string[] => {
  const found: string[] = [];
  links.forEach(key, (other) => found.push(other));
  return found;
};

test('a link is found from either end, replaced in place, and counted once', (t) => {
  const links = new Adjacency();
  links.set(link('a/dev', 'node-1', 1));
  t.is(links.size, 1);
  t.is(links.get('a/dev', 'node-1')?.latencyMs, 1);
  t.is(links.get('node-1', 'a/dev')?.latencyMs, 1);
  links.set(link('a/dev', 'node-1', 2));
  t.is(links.size, 1, 'replacing a link does not add one');
  t.is(links.get('node-1', 'a/dev')?.latencyMs, 2);
  t.is(links.get('a/dev', 'node-2'), undefined);
  t.is(links.get('nobody', 'a/dev'), undefined);
});

test('a vertex with many neighbours keeps them all, in order, across the switch to a Map and back down', (t) => {
  const links = new Adjacency();
  const devices = Array.from({ length: 40 }, (_, i) => `a/dev-${String(i).padStart(2, '0')}`);
  for (const device of devices) links.set(link(device, 'node-1'));
  t.is(links.size, 40);
  t.deepEqual(neighbours(links, 'node-1'), devices);
  for (const device of devices) t.truthy(links.get('node-1', device), device);
  links.set(link(devices[3] as string, 'node-1', 7));
  t.is(links.size, 40, 'a replace in the Map adds nothing');
  for (const device of devices.slice(0, 35)) t.is(links.delete(device, 'node-1')?.source, device);
  t.is(links.size, 5);
  t.deepEqual(neighbours(links, 'node-1'), devices.slice(35));
  t.true(links.isolated(devices[0] as string), 'a device whose only link went holds nothing');
  t.false(links.isolated('node-1'));
});

test('deleting is idempotent and frees both ends', (t) => {
  const links = new Adjacency();
  links.set(link('a/dev', 'node-1'));
  links.set(link('a/dev', 'node-2'));
  t.truthy(links.delete('node-1', 'a/dev'));
  t.is(links.delete('node-1', 'a/dev'), undefined);
  t.is(links.delete('a/dev', 'node-9'), undefined);
  t.is(links.size, 1);
  t.true(links.isolated('node-1'));
  t.deepEqual(neighbours(links, 'a/dev'), ['node-2']);
});

test('every link is visited once, whichever end holds a list or a Map', (t) => {
  const links = new Adjacency();
  for (let i = 0; i < 30; i++) links.set(link(`a/dev-${String(i)}`, i % 2 === 0 ? 'node-1' : 'node-2'));
  links.set(link('node-1', 'node-2'));
  const seen: string[] = [];
  links.forEachLink((l) => seen.push(`${l.source}--${l.target}`));
  t.is(seen.length, 31);
  t.is(new Set(seen).size, 31);
});

test('a callback may remove the links it is given', (t) => {
  const links = new Adjacency();
  for (let i = 0; i < 20; i++) links.set(link(`a/dev-${String(i)}`, 'node-1'));
  links.forEach('node-1', (other) => { links.delete('node-1', other); });
  t.is(links.size, 0);
  t.true(links.isolated('node-1'));
});
