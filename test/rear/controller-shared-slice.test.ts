// REAR and DRONE share prov-b's slice while a sale is being stored, through the real controllers
// on three control planes. A sale whose write fails is taken out of DRONE's ledger again. Then
// prov-b's book store is held mid-write (the Transaction not yet written) while DRONE is asked to
// place an app that would fit the slice without that reservation: DRONE must already count it, so
// the app finds no host on prov-b, and at no moment do REAR's holdings and DRONE's hosted work
// exceed what prov-b offers.
import test from 'ava';
import type { Book } from '../../controller/rear/core/provider.ts';
import { SOLD_APP_PREFIX } from '../../controller/drone/host-ledger.ts';
import { waitFor } from '../support/wait.ts';
import { createApp, readApp, twoComponentApp } from '../offload/support.ts';
import { rearFederation, rearOf } from './controllers.ts';
import { sellerAccount, watchBooks } from './accounting.ts';

const part = (cpu: number, memory: number, pods: number): { partition: { cpu: number; memory: number; pods: number; storage: number; gpu: number } } => ({ partition: { cpu, memory, pods, storage: 0, gpu: 0 } });

test('a sale is held in DRONE\'s ledger from the moment it is decided, and let go when its write fails: DRONE places nothing into it', async (t) => {
  // reservations outlast the test: none lapses while DRONE's placement is waited for
  const { cons, sn, prov } = await rearFederation(t, ['--rear-reservation-seconds', '900']);
  const { market, store } = rearOf(prov);
  const agent = prov.controller.controller.offloader?.federation.agent;
  if (market === undefined || store === undefined || agent === undefined) throw new Error('prov-b sells nothing');
  const rearHeld = (): Array<[string, number]> => agent.hosted().filter((e) => e.app.startsWith(SOLD_APP_PREFIX)).map((e) => [e.app, e.resources.cpu]);
  const persist = store.persist.bind(store);
  const watch = watchBooks([prov, sn]);

  // a write the API server refuses: the sale is refused and nothing stays held
  store.persist = () => Promise.reject(new Error('the API server refused the write'));
  const whole = market.flavours()[0];
  t.is(whole?.characteristics.cpu, 4000);
  await t.throwsAsync(market.reserve({ flavourId: whole?.id ?? '', buyer: 'cons-a', requestId: 'cons-a.lost', take: part(1000, 1024, 1) }), { message: /refused the write/ });
  t.deepEqual(rearHeld(), [], 'nothing held for a sale not made');
  t.deepEqual(market.current().transactions, []);
  t.is(market.flavours()[0]?.id, whole?.id, 'the flavour is still whole');
  // the same request once the store writes again
  store.persist = persist;
  const first = await market.reserve({ flavourId: whole?.id ?? '', buyer: 'cons-a', requestId: 'cons-a.lost', take: part(1000, 1024, 1) });
  t.deepEqual(rearHeld(), [[`${SOLD_APP_PREFIX}${first.transactionId}`, 1000]]);

  // the next write waits until released
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  let storing = false;
  store.persist = async (book: Book) => { storing = true; await gate; return persist(book); };
  const rest = market.flavours()[0];
  t.is(rest?.characteristics.cpu, 3000);
  const reserving = market.reserve({ flavourId: rest?.id ?? '', buyer: 'cons-a', requestId: 'cons-a.held', take: part(2500, 2048, 1) });
  await waitFor('the reservation being stored', () => (storing ? true : undefined));
  t.deepEqual(rearHeld().map(([, cpu]) => cpu).sort(), [1000, 2500], 'DRONE\'s ledger holds the reservation before it is stored');

  // 2 × 1 cpu would fit the 3 cpu DRONE saw without it, not the 500m left: no host on prov-b while the write is held
  const app = twoComponentApp('shop', { cpu: '1', memory: '512Mi' }) as { spec: Record<string, unknown> };
  app.spec.offload = true;
  await createApp(cons.kube, app);
  const settled = await waitFor('shop to be placed or to fail', async () => { const d = await readApp(cons.kube, 'shop'); return d?.status?.phase === 'FAILED' || d?.status?.phase === 'RUNNING' ? d : undefined; }, { timeoutMs: 120_000 });
  t.falsy(settled.status?.components?.some((c) => c.cluster === 'prov-b'), `shop ${settled.status?.phase ?? ''} on ${(settled.status?.components ?? []).map((c) => c.cluster).join(', ')}`);

  release();
  const second = await reserving;
  t.deepEqual(rearHeld().sort(), [[`${SOLD_APP_PREFIX}${first.transactionId}`, 1000], [`${SOLD_APP_PREFIX}${second.transactionId}`, 2500]].sort());
  const seen = await watch.stop();
  t.is(seen.breach, undefined, `sampled ${String(seen.samples)} times`);
  t.like(sellerAccount(prov), { reservations: 3500, contracts: 0 });
});
