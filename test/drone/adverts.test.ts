import test from 'ava';
import { DEFAULT_TIMERS } from '../../controller/drone/agent-core.ts';
import type { SliceAdvertMessage } from '../../controller/drone/messages/index.ts';
import { SimFederation } from './support/network.ts';
import { component, job } from './support/jobs.ts';

function adverts(fed: SimFederation, from: string): SliceAdvertMessage[] {
  return fed.sent.filter((s) => s.from === from && s.message.kind === 'slice-advert').map((s) => s.message as SliceAdvertMessage);
}

test('a provider advertises its slice at start, again when it changes, and periodically', (t) => {
  const fed = new SimFederation([
    { id: 'a', free: { cpu: 200, memory: 256 }, scalePercent: 100 },
    { id: 'b', free: { cpu: 4000, memory: 4096 }, scalePercent: 50 },
  ], { seed: 3 });
  fed.start();
  fed.run(10);
  t.deepEqual(adverts(fed, 'b').map((a) => a.offered), [{ cpu: 2000, memory: 2048 }]);
  fed.submit(job('web', 'a', [component('api', 500, 512)]));
  fed.run(100);
  t.deepEqual(adverts(fed, 'b').map((a) => a.offered), [{ cpu: 2000, memory: 2048 }, { cpu: 1500, memory: 1536 }], 'on change: what is left of the slice');
  // The change went out at the advert gap (100 ms) after the first advert; periodic ones follow it.
  fed.run(DEFAULT_TIMERS.advertIntervalMs * 2 + 150);
  const all = adverts(fed, 'b');
  t.true(all.length >= 4, `periodic: ${all.length} adverts`);
  t.deepEqual(all.map((a) => a.seq), all.map((_, i) => i + 1), 'each advert has the next sequence number');
});

test('an advert carries only the offer: no nodes, pods, free capacity or scale', (t) => {
  const fed = new SimFederation([{ id: 'a', free: { cpu: 1000, memory: 1000 }, scalePercent: 30 }, { id: 'b', free: { cpu: 1, memory: 1 }, scalePercent: 1 }], { seed: 1 });
  fed.start();
  const [advert] = adverts(fed, 'a');
  t.deepEqual(Object.keys(advert ?? {}).sort(), ['hops', 'id', 'kind', 'offered', 'sender', 'seq', 'timestamp', 'ttlMs', 'v']);
  t.deepEqual(advert?.offered, { cpu: 300, memory: 300 });
});

test('peers forget a slice when its advert expires, and count on it again when adverts resume', (t) => {
  const fed = new SimFederation([
    { id: 'a', free: { cpu: 100, memory: 100 }, scalePercent: 100 },
    { id: 'b', free: { cpu: 4000, memory: 4096 }, scalePercent: 50 },
  ], { seed: 5, timers: { advertIntervalMs: 1000, advertTtlMs: 3000 } });
  fed.start();
  fed.run(10);
  t.deepEqual(fed.agent('a').providers(fed.now), ['b']);
  fed.disconnect('b');
  fed.run(3100);
  t.deepEqual(fed.agent('a').providers(fed.now), []);
  fed.reconnect('b');
  fed.run(4200);
  t.deepEqual(fed.agent('a').providers(fed.now), ['b']);
});

test('slice changes close together go out as one advert, once the gap since the previous advert has passed', (t) => {
  const fed = new SimFederation([
    { id: 'a', free: { cpu: 200, memory: 256 }, scalePercent: 100 },
    { id: 'b', free: { cpu: 4000, memory: 4096 }, scalePercent: 50 },
  ], { seed: 3, timers: { advertGapMs: 100 } });
  fed.start();
  fed.run(10);
  fed.submit(job('web', 'a', [component('api', 500, 512)]));
  fed.run(30);
  fed.submit(job('etl', 'a', [component('worker', 500, 512)]));
  fed.run(60);
  t.deepEqual(adverts(fed, 'b').map((a) => a.offered), [{ cpu: 2000, memory: 2048 }], 'b hosts both, but has not advertised the change yet');
  t.is(fed.agent('b').hosted().length, 2);
  fed.run(100);
  const sent = fed.sent.filter((s) => s.from === 'b' && s.message.kind === 'slice-advert');
  t.deepEqual(sent.map((s) => (s.message.kind === 'slice-advert' ? s.message.offered : undefined)), [{ cpu: 2000, memory: 2048 }, { cpu: 1000, memory: 1024 }], 'one advert for both changes');
  t.is(sent[1]?.at, 100, 'the gap after the advert at start');
});
