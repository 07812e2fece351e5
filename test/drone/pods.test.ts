// Pods as a resource of slicing: a node takes at most its allocatable pods, so a
// slice counts them with cpu and memory; agents older than that (no `pods` on the wire) still
// interoperate. The offloading benchmark stalled at a node's 110 pods while cpu and memory were
// still offered: these tests pin the arithmetic, the wire, the auction and the host's admission.
import test from 'ava';
import { admissible, type CapacityView } from '../../controller/drone/auction/budget.ts';
import { utility } from '../../controller/drone/auction/utility.ts';
import { FedSlices } from '../../controller/drone/fed-slices.ts';
import { HostLedger } from '../../controller/drone/host-ledger.ts';
import { droneCodec } from '../../controller/drone/messages/index.ts';
import type { SliceAdvertMessage } from '../../controller/drone/messages/index.ts';
import { add, atLeastZero, fits, isEmpty, least, sameResources, scale, shortOf, subtract, sum, type Resources } from '../../controller/drone/model.ts';
import { SimFederation } from './support/network.ts';
import { component, job } from './support/jobs.ts';

test('arithmetic counts pods with cpu and memory', (t) => {
  t.deepEqual(add({ cpu: 100, memory: 64, pods: 1 }, { cpu: 200, memory: 128, pods: 2 }), { cpu: 300, memory: 192, pods: 3 });
  t.deepEqual(subtract({ cpu: 1000, memory: 1024, pods: 3 }, { cpu: 100, memory: 64, pods: 1 }), { cpu: 900, memory: 960, pods: 2 });
  t.deepEqual(atLeastZero({ cpu: -1, memory: 5, pods: -2 }), { cpu: 0, memory: 5, pods: 0 });
  t.deepEqual(least({ cpu: 1000, memory: 10, pods: 5 }, { cpu: 10, memory: 1000, pods: 2 }), { cpu: 10, memory: 10, pods: 2 });
  t.deepEqual(sum([{ cpu: 1, memory: 1, pods: 1 }, { cpu: 1, memory: 1, pods: 1 }]), { cpu: 2, memory: 2, pods: 2 });
  t.true(fits({ cpu: 100, memory: 64, pods: 1 }, { cpu: 100, memory: 64, pods: 1 }));
  t.false(fits({ cpu: 100, memory: 64, pods: 1 }, { cpu: 8000, memory: 16384, pods: 0 }), 'cpu and memory fit, pods do not');
  t.deepEqual(shortOf({ cpu: 100, memory: 64, pods: 1 }, { cpu: 8000, memory: 16384, pods: 0 }), ['pods']);
  t.deepEqual(shortOf({ cpu: 100, memory: 64, pods: 1 }, { cpu: 50, memory: 16384, pods: 0 }), ['cpu', 'pods']);
});

test('a slice offers whole pods: the scale percentage is floored', (t) => {
  t.deepEqual(scale({ cpu: 1000, memory: 1000, pods: 3 }, 50), { cpu: 500, memory: 500, pods: 1 });
  t.deepEqual(scale({ cpu: 1000, memory: 1000, pods: 110 }, 50), { cpu: 500, memory: 500, pods: 55 });
  t.deepEqual(scale({ cpu: 1000, memory: 1000, pods: 7 }, 100), { cpu: 1000, memory: 1000, pods: 7 });
  t.deepEqual(scale({ cpu: 1000, memory: 1000, pods: 1 }, 99), { cpu: 990, memory: 990, pods: 0 });
});

test('a capacity without pods (an older agent) is not limited by pods; a need without pods takes none', (t) => {
  const unlimited = { cpu: 1000, memory: 1024 };
  t.true(fits({ cpu: 100, memory: 64, pods: 50 }, unlimited));
  t.deepEqual(subtract(unlimited, { cpu: 100, memory: 64, pods: 1 }), { cpu: 900, memory: 960 }, 'stays unlimited');
  t.deepEqual(scale(unlimited, 50), { cpu: 500, memory: 512 });
  t.deepEqual(least(unlimited, { cpu: 2000, memory: 2048, pods: 4 }), { cpu: 1000, memory: 1024, pods: 4 });
  t.true(fits({ cpu: 100, memory: 64 }, { cpu: 100, memory: 64, pods: 0 }));
  t.deepEqual(add({ cpu: 1, memory: 1 }, { cpu: 1, memory: 1 }), { cpu: 2, memory: 2 }, 'needs without pods add up without pods');
});

test('a slice with no pod left is empty, whatever cpu and memory it has', (t) => {
  t.true(isEmpty({ cpu: 8000, memory: 16384, pods: 0 }));
  t.false(isEmpty({ cpu: 8000, memory: 16384, pods: 1 }));
  t.false(isEmpty({ cpu: 8000, memory: 16384 }));
  t.true(isEmpty({ cpu: 0, memory: 0, pods: 9 }));
  t.false(sameResources({ cpu: 1, memory: 1, pods: 2 }, { cpu: 1, memory: 1, pods: 1 }), 'a change in pods alone is a change (a new advert)');
  t.true(sameResources({ cpu: 1, memory: 1, pods: 2 }, { cpu: 1, memory: 1, pods: 2 }));
});

test('utility is 0 (no vote) when the room has no pod left', (t) => {
  const capacity = { cpu: 1000, memory: 1000, pods: 10 };
  t.is(utility({ cpu: 100, memory: 100, pods: 1 }, { cpu: 1000, memory: 1000, pods: 0 }, capacity), 0);
  t.is(utility({ cpu: 100, memory: 100, pods: 1 }, { cpu: 1000, memory: 1000, pods: 1 }, capacity), 90);
});

function advert(offered: unknown): string {
  return JSON.stringify({ hops: 0, v: 1, kind: 'slice-advert', id: 'b.00000001', sender: 'b', timestamp: 1, offered, seq: 1, ttlMs: 1000 });
}

test('slice adverts with pods, and without them from older agents, are accepted; bad pod counts are dropped', (t) => {
  const codec = droneCodec();
  t.like(codec.decode(advert({ cpu: 1000, memory: 512, pods: 3 })), { ok: true, message: { offered: { cpu: 1000, memory: 512, pods: 3 } } });
  const old = codec.decode(advert({ cpu: 1000, memory: 512 }));
  t.like(old, { ok: true, message: { offered: { cpu: 1000, memory: 512 } } });
  t.like(codec.decode(advert({ cpu: 1000, memory: 512, pods: 1.5 })), { ok: false, reason: 'invalid' });
  t.like(codec.decode(advert({ cpu: 1000, memory: 512, pods: -1 })), { ok: false, reason: 'invalid' });

  const slices = new FedSlices();
  const offer = (sender: string, offered: Resources): Pick<SliceAdvertMessage, 'sender' | 'offered' | 'seq' | 'ttlMs'> => ({ sender, offered, seq: 1, ttlMs: 1000 });
  slices.update(offer('old', { cpu: 1000, memory: 512 }), 0);
  slices.update(offer('full', { cpu: 8000, memory: 16384, pods: 0 }), 0);
  slices.update(offer('roomy', { cpu: 1000, memory: 512, pods: 2 }), 0);
  t.deepEqual(slices.providers(1), ['old', 'roomy'], 'a provider without a pod left is not offered work');
});

function view(free: Resources, hosted: CapacityView['hosted'] = []): CapacityView {
  return { self: 'b', free, offered: scale(free, 100), hosted, held: [], demand: new Map(), weights: new Map() };
}

test('the host reserves pods with the slice, refuses (NACK naming the pods) when none is left, and frees them on release', (t) => {
  const ledger = new HostLedger();
  const free = { cpu: 8000, memory: 16384, pods: 2 };
  const ask = (requestId: string, name: string, resources: Resources): Parameters<HostLedger['answer']>[0] => ({ origin: 'a', requestId, app: 'shop', component: name, resources });
  const check = (need: Resources): boolean => admissible(view(free, ledger.entries()), 'a', need);
  t.like(ledger.answer(ask('r1', 'api', { cpu: 100, memory: 64, pods: 1 }), check, 1), { verdict: 'ACK' });
  // an origin older than pod slicing sends no pods: its component still takes one here
  t.like(ledger.answer(ask('r2', 'db', { cpu: 100, memory: 64 }), check, 2), { verdict: 'ACK' });
  t.deepEqual(ledger.entries().map((e) => e.resources.pods), [1, 1]);
  const refused = ledger.answer(ask('r3', 'cache', { cpu: 100, memory: 64, pods: 1 }), check, 3);
  t.is(refused.verdict, 'NACK', 'cpu and memory are plenty, but both pods are held');
  t.regex(refused.reason ?? '', /component cache \(cpu 100m, memory 64Mi, 1 pod\) does not fit/);
  ledger.release('a', 'shop', 'api');
  t.like(ledger.answer(ask('r4', 'cache', { cpu: 100, memory: 64, pods: 1 }), check, 4), { verdict: 'ACK' }, 'the released pod is free again');
});

/** b is the roomiest by cpu and memory; `bPods` pods are free on its nodes (it offers half, floored). */
function pods(mode: 'open' | 'sealed', bPods: number, fanout?: number): SimFederation {
  const fed = new SimFederation([
    { id: 'a', free: { cpu: 500, memory: 512, pods: 10 }, scalePercent: 100 },
    { id: 'b', free: { cpu: 16000, memory: 32768, pods: bPods }, scalePercent: 50 },
    { id: 'c', free: { cpu: 4000, memory: 4096, pods: 10 }, scalePercent: 50 },
  ], { seed: 7, mode, ...(fanout === undefined ? {} : { fanout }) });
  fed.start();
  fed.run(10);
  return fed;
}

function lastAdvert(fed: SimFederation, from: string): Resources | undefined {
  const adverts = fed.sent.filter((s) => s.from === from && s.message.kind === 'slice-advert');
  const last = adverts.at(-1)?.message;
  return last?.kind === 'slice-advert' ? last.offered : undefined;
}

for (const mode of ['open', 'sealed'] as const) {
  for (const fanout of [undefined, 0]) {
    test(`${mode} mode${fanout === 0 ? ', every provider called' : ''}: cpu and memory fit on b but its pods do not, so the component goes to c`, (t) => {
      const control = pods(mode, 4, fanout);
      control.submit(job('web', 'a', [component('api', 1000, 512, { resources: { cpu: 1000, memory: 512, pods: 1 } })]));
      control.run(200);
      t.like(control.outcomes().get('a/web')?.[0], { type: 'placed', placement: { api: 'b' } }, 'with pods to spare, the roomiest wins');

      const fed = pods(mode, 1, fanout);
      t.deepEqual(lastAdvert(fed, 'b'), { cpu: 8000, memory: 16384, pods: 0 }, 'half of 1 pod, floored');
      fed.submit(job('web', 'a', [component('api', 1000, 512, { resources: { cpu: 1000, memory: 512, pods: 1 } })]));
      fed.run(200);
      t.like(fed.outcomes().get('a/web')?.[0], { type: 'placed', placement: { api: 'c' } });
      t.deepEqual(fed.agent('b').hosted(), []);
      const fromB = fed.sent.filter((s) => s.from === 'b' && s.message.kind !== 'slice-advert');
      if (mode === 'sealed') for (const s of fromB) t.deepEqual(s.message.kind === 'sealed-vote' ? s.message.bids : [], [], 'b bids on nothing');
      else for (const s of fromB) t.false(s.message.kind === 'votes' && s.message.entries.some((e) => e.cluster === 'b' && e.value > 0), 'b votes for nothing');
    });
  }
}

test('as hosted components fill its pods, a provider stops winning though cpu and memory remain', (t) => {
  // b offers 2 pods (half of 4); each app is one component of one pod, small enough that b keeps
  // most of its slice (it stays the roomiest, auction/utility.ts fitAware), and too large for a's own room
  const fed = pods('sealed', 4);
  for (const [i, app] of ['one', 'two', 'three'].entries()) {
    fed.submit(job(app, 'a', [component(`${app}-api`, 600, 512, { resources: { cpu: 600, memory: 512, pods: 1 } })]));
    fed.run(fed.now + 200 * (i + 1));
  }
  const placed = ['one', 'two', 'three'].map((app) => (fed.outcomes().get(`a/${app}`)?.[0] as { placement?: Record<string, string> } | undefined)?.placement?.[`${app}-api`]);
  t.deepEqual(placed, ['b', 'b', 'c']);
  t.deepEqual(lastAdvert(fed, 'b'), { cpu: 6800, memory: 15360, pods: 0 }, 'b advertises no pod left, with cpu and memory to spare');
  fed.withdraw('a', 'one');
  fed.run(fed.now + 200);
  t.like(lastAdvert(fed, 'b'), { pods: 1 }, 'a released component gives its pod back');
});
