// The pure parts of REAR's wiring: the --rear-... settings (and the errors that name the flag to
// fix), the seller's book as resources and back, and the ledger sync between REAR and DRONE.
import test from 'ava';
import { loadConfig } from '../../shared/config.ts';
import { ControllerConfig } from '../../controller/config.ts';
import { catalogueOf, policyOf, resourcesOf, termsOf, topologyOf } from '../../controller/rear/settings.ts';
import { bookChanges, bookOf, contractObject, FLAVOUR_ANNOTATION, transactionObject } from '../../controller/rear/book-objects.ts';
import { ledgerSync, REAR_APP_PREFIX } from '../../controller/rear/core/shared-slice.ts';
import { catalogue, purchase, reserve, EMPTY_BOOK } from '../../controller/rear/core/provider.ts';
import { partitionable, r, slice, terms } from './fixtures.ts';
import { EDGEMAP_RULE, REAR_BUY_RULE, REAR_LIST_RULE, ruleFor } from '../../controller/http-auth.ts';

const settings = (argv: string[]): ControllerConfig => loadConfig(ControllerConfig, { argv, env: {} });

test('the --rear-... flags become the catalogue, terms and topology', (t) => {
  const s = settings(['--rear-domain', 'domain-a', '--rear-members', 'c1,c2', '--rear-supernodes', 'domain-b=sn-b,domain-c=sn-c', '--rear-price-rate', 'cpu=0.05,memory=0.02,gpu=1', '--rear-period', 'daily', '--rear-storage', '10Gi', '--rear-reservation-seconds', '30']);
  t.deepEqual(topologyOf(s, 'sn-a', 'domain-a'), { self: 'sn-a', domain: 'domain-a', supernode: 'sn-a', members: ['c1', 'c2'], supernodes: new Map([['domain-b', 'sn-b'], ['domain-c', 'sn-c']]) });
  const catalogue = catalogueOf(s, 'sn-a', 'domain-a');
  t.like(catalogue, { type: 'K8Slice', architecture: 'amd64', storage: 10_240, rate: { currency: 'EUR', period: 'daily', perCpu: 0.05, perGiB: 0.02, perGpu: 1, perStorageGiB: 0 } });
  t.deepEqual(catalogue.policy, { kind: 'partitionable', min: r(500, 512, 1), step: r(250, 256, 1) });
  t.is(termsOf(s).reservationMs, 30_000);
  const member = settings(['--rear-domain', 'domain-a', '--rear-supernode', 'sn-a']);
  t.deepEqual(topologyOf(member, 'c1', 'domain-a'), { self: 'c1', domain: 'domain-a', supernode: 'sn-a' });
  t.deepEqual(policyOf(settings(['--rear-policy', 'aggregatable', '--rear-unit', 'cpu=2,memory=4Gi,pods=4', '--rear-max-count', '3'])), { kind: 'aggregatable', unit: r(2000, 4096, 4), minCount: 1, maxCount: 3 });
});

test('bad REAR settings are refused with the flag to fix', (t) => {
  t.throws(() => resourcesOf('cpu=500m,disk=1Gi', '--rear-min'), { message: /--rear-min: "disk" is not one of cpu, memory, pods, storage, gpu/ });
  t.throws(() => resourcesOf('cpu=lots', '--rear-step'), { message: /--rear-step cpu: "lots" is not a Kubernetes quantity/ });
  t.throws(() => resourcesOf('cpu', '--rear-unit'), { message: /--rear-unit entry "cpu" must be name=value/ });
  t.throws(() => catalogueOf(settings(['--rear-price-rate', 'cpu=-1']), 'c', 'd'), { message: /--rear-price-rate entry "cpu=-1"/ });
  t.throws(() => policyOf(settings(['--rear-policy', 'aggregatable', '--rear-min-count', '5', '--rear-max-count', '2'])), { message: /--rear-min-count \(5\) must not exceed --rear-max-count \(2\)/ });
  t.throws(() => termsOf(settings(['--rear-contract-seconds', '100', '--rear-max-contract-seconds', '10'])), { message: /--rear-contract-seconds/ });
  t.throws(() => topologyOf(settings(['--rear-supernode', 'sn-a', '--rear-members', 'c2']), 'c1', 'd'), { message: /--rear-members and --rear-supernodes are for a supernode/ });
  t.throws(() => settings(['--rear-supernodes', 'domain-b']), { message: /rear/i });
});

const seller = { slice, config: partitionable, terms };

test('the book goes into Transaction and Contract objects and comes back the same', (t) => {
  const flavourId = catalogue(slice, EMPTY_BOOK, partitionable)[0]?.id ?? '';
  const one = reserve(seller, EMPTY_BOOK, { flavourId, buyer: 'cons-1', requestId: 'cons-1.r1', take: { partition: r(1000, 1024, 2) } }, { now: 1_000, id: 'tx-1' });
  const tObject = transactionObject(one.transaction, 'ns', 'prov-1');
  t.like(tObject, { kind: 'Transaction', metadata: { name: 'tx-1', namespace: 'ns', labels: { 'rear.edgeshifu.io/seller': 'prov-1' } }, spec: { resources: { cpu: '1000m', memory: '1024Mi' }, startTime: '1970-01-01T00:00:01.000Z' } });
  t.deepEqual(bookOf([tObject], [], 2_000).transactions, [one.transaction]);
  const bought = purchase(seller, one.book, { transactionId: 'tx-1', flavourId, buyer: 'cons-1' }, { now: 2_000, id: 'contract-1' });
  const cObject = contractObject(bought.contract, { seller: 'c2ln' }, 'ns');
  t.deepEqual(bookOf([], [cObject], 3_000).contracts, [bought.contract]);
  // a purchase whose write stopped between the Contract and the Transaction's delete: held once, as the contract
  t.deepEqual(bookOf([tObject], [cObject], 3_000), { transactions: [], contracts: [bought.contract] });
  t.deepEqual(bookOf([tObject], [{ ...cObject, status: { phase: 'Withdrawn' } }], 3_000), { transactions: [], contracts: [] });
  // expired, withdrawn, or unreadable records are not sold from again
  t.deepEqual(bookOf([tObject], [], one.transaction.expiresAt), { transactions: [], contracts: [] });
  t.deepEqual(bookOf([], [{ ...cObject, status: { phase: 'Withdrawn' } }], 3_000).contracts, []);
  t.deepEqual(bookOf([{ ...tObject, metadata: { name: 'tx-1', annotations: { [FLAVOUR_ANNOTATION]: '{' } } }], [], 2_000).transactions, []);
  t.deepEqual(bookChanges(one.book, bought.book), { added: { transactions: [], contracts: [bought.contract] }, gone: { transactions: [one.transaction], contracts: [] } });
});

test('DRONE\'s ledger holds exactly REAR\'s live holdings, and only REAR\'s entries are touched', (t) => {
  const drone = { origin: 'x', app: 'shop', component: 'db', resources: { cpu: 100, memory: 100, pods: 1 } };
  const stale = { origin: 'cons-1', app: `${REAR_APP_PREFIX}tx-1`, component: 'flavour', resources: { cpu: 1000, memory: 1024, pods: 2 } };
  const { add, drop } = ledgerSync([{ id: 'contract-1', buyer: 'cons-1', resources: r(1000, 1024, 2) }], [drone, stale]);
  t.deepEqual(add, [{ origin: 'cons-1', app: `${REAR_APP_PREFIX}contract-1`, component: 'flavour', resources: { cpu: 1000, memory: 1024, pods: 2 } }]);
  t.deepEqual(drop, [stale]);
  t.deepEqual(ledgerSync([{ id: 'tx-1', buyer: 'cons-1', resources: r(1000, 1024, 2) }], [drone, stale]), { add: [], drop: [] });
});

test('behind the token guard, REAR\'s routes ask for REAR\'s own rights', (t) => {
  t.is(ruleFor('/api/v2/flavors'), REAR_LIST_RULE);
  t.is(ruleFor('/api/v2/flavors/selector'), REAR_LIST_RULE);
  t.is(ruleFor('/api/v2/reservations'), REAR_BUY_RULE);
  t.is(ruleFor('/api/v2/transactions/tx-1/purchase'), REAR_BUY_RULE);
  t.is(ruleFor('/edgemap'), EDGEMAP_RULE);
  t.deepEqual(REAR_BUY_RULE, { resource: { verb: 'create', group: 'shifu.edgenesis.io', resource: 'transactions' } });
});
