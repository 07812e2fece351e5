import test from 'ava';
import { flavoursOf, onSale, validatePolicy } from '../../controller/rear/core/flavours.ts';
import { catalogue, EMPTY_BOOK, expire, nextExpiry, purchase, reserve, withdraw } from '../../controller/rear/core/provider.ts';
import { droneHeld, ledgerEntry } from '../../controller/rear/core/shared-slice.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { aggregatable, partitionable, r, slice, terms } from './fixtures.ts';

test('a partitionable flavour offers the whole slice, priced from the configured rate', (t) => {
  const [f, ...rest] = flavoursOf(slice, partitionable);
  t.is(rest.length, 0);
  t.deepEqual(f?.characteristics, r(4000, 8192, 20, 10_240));
  t.deepEqual(f?.price, { amount: 0.24, currency: 'EUR', period: 'hourly' }); // 4 × 0.04 + 8 × 0.01
  t.regex(f?.id ?? '', /^prov-1-k8slice-[0-9a-f]{16}$/);
});

test('DRONE hosted work is held on the same slice: REAR never sells it again, and its own ledger entries are not counted twice', (t) => {
  const ledger = [
    { origin: 'edge-7', app: 'shop', component: 'db', resources: { cpu: 1000, memory: 2048, pods: 1 } },
    ledgerEntry('cons-1', 'tx-1', r(500, 512, 1)),
  ];
  const held = droneHeld(ledger);
  t.deepEqual(held, [r(1000, 2048, 1)]);
  t.deepEqual(onSale({ offered: slice.offered, held }, partitionable), r(3000, 6144, 19, 10_240));
  t.is(ledger[1]?.app, 'rear.tx-1');
});

test('no flavour when less than the policy minimum is left', (t) => {
  t.deepEqual(flavoursOf({ offered: { cpu: 400, memory: 8192, pods: 20 }, held: [] }, partitionable), []);
});

test('an aggregatable flavour sells whole units, at most maxCount, as many as fit', (t) => {
  const [f] = flavoursOf(slice, aggregatable);
  t.is(f?.units, 3); // 4 fit, maxCount 3
  const [small] = flavoursOf({ offered: { cpu: 2500, memory: 8192, pods: 20 }, held: [] }, aggregatable);
  t.is(small?.units, 2);
  t.deepEqual(flavoursOf({ offered: { cpu: 900, memory: 8192, pods: 20 }, held: [] }, aggregatable), []);
});

test('bad policies are refused naming what to fix', (t) => {
  const e1 = t.throws(() => { validatePolicy({ kind: 'aggregatable', unit: r(1000, 0), minCount: 3, maxCount: 2 }); });
  t.regex(e1.message, /1 <= minCount <= maxCount/);
  const e2 = t.throws(() => { validatePolicy({ kind: 'partitionable', min: r(-1, 0), step: r(0, 0) }); });
  t.regex(e2.message, /min\.cpu/);
});

test('reservation shrinks the flavour (old id gone, reduced one advertised); purchase keeps it held; expiry of an unpurchased one restores it', (t) => {
  const [whole] = catalogue(slice, EMPTY_BOOK, partitionable);
  if (whole === undefined) return t.fail();
  const { book, transaction } = reserve({ slice, config: partitionable, terms }, EMPTY_BOOK, { flavourId: whole.id, buyer: 'cons-1', take: { partition: r(1000, 1024, 2) } }, { now: 1_000, id: 'tx-1' });
  t.deepEqual(transaction, { ...transaction, flavourId: whole.id, buyer: 'cons-1', startTime: 1_000, expiresAt: 31_000, resources: r(1000, 1024, 2) });
  t.deepEqual(transaction.price, { amount: 0.05, currency: 'EUR', period: 'hourly' });
  const [reduced] = catalogue(slice, book, partitionable);
  t.not(reduced?.id, whole.id);
  t.deepEqual(reduced?.characteristics, r(3000, 7168, 18, 10_240));
  t.is(nextExpiry(book), 31_000);
  // Not yet expired at 30 999; expired at 31 000: the whole flavour is back, under its old id.
  t.is(expire(book, 30_999).book, book);
  const after = expire(book, 31_000);
  t.deepEqual(after.expired.map((x) => x.transactionId), ['tx-1']);
  t.is(catalogue(slice, after.book, partitionable)[0]?.id, whole.id);
  // Purchased in time, it stays held until the contract ends.
  const bought = purchase({ slice, config: partitionable, terms }, book, { transactionId: 'tx-1', flavourId: whole.id, buyer: 'cons-1', durationMs: 60_000 }, { now: 2_000, id: 'c-1' });
  t.deepEqual(bought.contract.peering, { cluster: 'prov-1', namespace: 'rear-cons-1' });
  t.is(bought.contract.expiresAt, 62_000);
  t.is(bought.book.transactions.length, 0);
  t.is(catalogue(slice, expire(bought.book, 31_000).book, partitionable)[0]?.id, reduced?.id);
  const ended = expire(bought.book, 62_000);
  t.deepEqual(ended.ended.map((c) => c.contractId), ['c-1']);
  t.is(catalogue(slice, ended.book, partitionable)[0]?.id, whole.id);
  // Withdrawn mid-contract: restored at once.
  const gone = withdraw(bought.book, 'c-1');
  t.is(gone.withdrawn?.contractId, 'c-1');
  t.is(catalogue(slice, gone.book, partitionable)[0]?.id, whole.id);
});

test('two buyers racing for the last flavour: exactly one wins, the other gets a not-found that says to list again', (t) => {
  const [last] = catalogue(slice, EMPTY_BOOK, partitionable);
  if (last === undefined) return t.fail();
  // Requests are applied one at a time on the provider (its queue); whoever comes first wins.
  for (const order of [['cons-a', 'cons-b'], ['cons-b', 'cons-a']] as const) {
    const first = reserve({ slice, config: partitionable, terms }, EMPTY_BOOK, { flavourId: last.id, buyer: order[0] }, { now: 0, id: `tx-${order[0]}` });
    const err = t.throws(() => reserve({ slice, config: partitionable, terms }, first.book, { flavourId: last.id, buyer: order[1] }, { now: 0, id: `tx-${order[1]}` }));
    t.true(isEdgeshifuError(err, 'not-found'));
    t.regex(err.message, /not on sale any more .*list the flavours again/);
    t.deepEqual(first.book.transactions.map((x) => x.buyer), [order[0]]);
    t.deepEqual(catalogue(slice, first.book, partitionable), []);
  }
});

test('a retransmitted RESERVE gets the same transaction and holds nothing more; a repeated PURCHASE the same contract', (t) => {
  const [f] = catalogue(slice, EMPTY_BOOK, aggregatable);
  if (f === undefined) return t.fail();
  const once = reserve({ slice, config: aggregatable, terms }, EMPTY_BOOK, { flavourId: f.id, buyer: 'cons-1', requestId: 'q1', take: { units: 2 } }, { now: 0, id: 'tx-1' });
  const twice = reserve({ slice, config: aggregatable, terms }, once.book, { flavourId: f.id, buyer: 'cons-1', requestId: 'q1', take: { units: 2 } }, { now: 5, id: 'tx-2' });
  t.false(twice.fresh);
  t.is(twice.transaction.transactionId, 'tx-1');
  t.is(twice.book, once.book);
  t.is(catalogue(slice, once.book, aggregatable)[0]?.units, 2);
  const p1 = purchase({ slice, config: aggregatable, terms }, once.book, { transactionId: 'tx-1', flavourId: f.id, buyer: 'cons-1' }, { now: 10, id: 'c-1' });
  const p2 = purchase({ slice, config: aggregatable, terms }, p1.book, { transactionId: 'tx-1', flavourId: f.id, buyer: 'cons-1' }, { now: 11, id: 'c-2' });
  t.false(p2.fresh);
  t.is(p2.contract.contractId, 'c-1');
});

test('purchase refusals: expired, another buyer, wrong flavour, bad duration', (t) => {
  const [f] = catalogue(slice, EMPTY_BOOK, partitionable);
  if (f === undefined) return t.fail();
  const { book } = reserve({ slice, config: partitionable, terms }, EMPTY_BOOK, { flavourId: f.id, buyer: 'cons-1' }, { now: 0, id: 'tx-1' });
  const late = t.throws(() => purchase({ slice, config: partitionable, terms }, book, { transactionId: 'tx-1', flavourId: f.id, buyer: 'cons-1' }, { now: 30_000, id: 'c' }));
  t.true(isEdgeshifuError(late, 'not-found'));
  t.regex(late.message, /unknown or expired: reserve the flavour again/);
  t.true(isEdgeshifuError(t.throws(() => purchase({ slice, config: partitionable, terms }, book, { transactionId: 'tx-1', flavourId: f.id, buyer: 'thief' }, { now: 1, id: 'c' })), 'forbidden'));
  t.true(isEdgeshifuError(t.throws(() => purchase({ slice, config: partitionable, terms }, book, { transactionId: 'tx-1', flavourId: 'other', buyer: 'cons-1' }, { now: 1, id: 'c' })), 'invalid'));
  const long = t.throws(() => purchase({ slice, config: partitionable, terms }, book, { transactionId: 'tx-1', flavourId: f.id, buyer: 'cons-1', durationMs: 10 ** 12 }, { now: 1, id: 'c' }));
  t.regex(long.message, /at most 86400000 ms/);
});

test('partitions must respect the policy: minimum, whole steps, and what is left', (t) => {
  const [f] = catalogue(slice, EMPTY_BOOK, partitionable);
  if (f === undefined) return t.fail();
  const ask = (partition: ReturnType<typeof r>) => () => reserve({ slice, config: partitionable, terms }, EMPTY_BOOK, { flavourId: f.id, buyer: 'c', take: { partition } }, { now: 0, id: 'tx' });
  t.regex(t.throws(ask(r(250, 512, 1))).message, /cpu 250 is below the flavour's minimum 500/);
  t.regex(t.throws(ask(r(600, 512, 1))).message, /cpu 600 must be the minimum 500 plus whole steps of 250/);
  const big = t.throws(ask(r(5000, 512, 1)));
  t.true(isEdgeshifuError(big, 'conflict'));
  t.regex(big.message, /short of cpu/);
  t.regex(t.throws(() => reserve({ slice, config: partitionable, terms }, EMPTY_BOOK, { flavourId: f.id, buyer: 'c', take: { units: 1 } }, { now: 0, id: 'tx' })).message, /partitionable: ask for a partition/);
});
