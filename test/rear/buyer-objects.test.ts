// The buyer's records as resources and back (pure): PeeringCandidates hold the candidate cache
// (the flavour whole, who told of it, its expiry), Reservations a Solver's attempts and the
// seller's expiry a restarted buyer waits by.
import test from 'ava';
import { candidateChanges, candidateObject, candidatesOf, expiryOf, flavourOf, pendingRequestOf, reservationName, reservationObject, type ReservationObject } from '../../controller/rear/buyer-objects.ts';
import { remember } from '../../controller/rear/core/discovery.ts';
import { catalogue, EMPTY_BOOK } from '../../controller/rear/core/provider.ts';
import { flavorSpec } from '../../controller/rear/flavor-publisher.ts';
import { aggregatable, partitionable, r, slice } from './fixtures.ts';

const [part] = catalogue(slice, EMPTY_BOOK, partitionable);
const [units] = catalogue(slice, EMPTY_BOOK, aggregatable);

test('a flavour goes into a PeeringCandidate and comes back the same, partitionable or aggregatable', (t) => {
  if (part === undefined || units === undefined) return t.fail('no flavours');
  t.deepEqual(flavourOf(flavorSpec(part)), part);
  t.deepEqual(flavourOf(flavorSpec(units)), units);
  const at = Date.parse('2026-11-27T08:00:00Z');
  const cache = remember(new Map(), { flavours: [part, units], via: 'discovery' }, at, 60_000);
  const objects = [...cache.values()].map((c) => candidateObject(c, 'edgeshifu-system', 'cons-a'));
  t.like(objects[0], { kind: 'PeeringCandidate', metadata: { name: part.id, namespace: 'edgeshifu-system', labels: { 'rear.edgeshifu.io/buyer': 'cons-a' } }, spec: { via: 'discovery', expiresAt: '2026-11-27T08:01:00.000Z', flavor: { flavorID: part.id, owner: { nodeID: 'prov-1' } } } });
  t.deepEqual(candidatesOf(objects, at), cache);
  // read back after the minute: expired candidates are not candidates (the store deletes them)
  t.deepEqual(candidatesOf(objects, at + 60_000), new Map());
  // one that no longer parses (edited by hand) is skipped, the others kept
  const broken = { ...objects[0], spec: { ...objects[0]?.spec, flavor: { ...flavorSpec(part), characteristics: { cpu: 'lots', memory: '1Gi' } } } } as typeof objects[number];
  t.deepEqual([...candidatesOf([broken, ...objects.slice(1)], at).keys()], [units.id]);
});

test('the cache\'s changes are candidates to write and names to delete', (t) => {
  if (part === undefined || units === undefined) return t.fail('no flavours');
  const one = remember(new Map(), { flavours: [part], via: 'discovery' }, 0, 60_000);
  const two = remember(one, { flavours: [part, units], via: 'discovery' }, 1, 60_000);
  t.deepEqual(candidateChanges(new Map(), one), { write: [...one.values()], remove: [] });
  t.deepEqual(candidateChanges(one, two).write.map((c) => c.flavour.id).sort(), [part.id, units.id].sort(), 'a flavour found again is written with its new expiry');
  const without = new Map(two);
  without.delete(part.id);
  t.deepEqual(candidateChanges(two, without), { write: [], remove: [part.id] });
});

test('a Reservation per attempt, owned by its Solver; its expiry only for the transaction it names', (t) => {
  if (part === undefined) return t.fail('no flavour');
  const o = reservationObject({ solver: 'web', uid: 'u-1', attempt: 2, namespace: 'apps', flavour: part, take: { partition: r(1000, 1024, 1) }, requestId: 'cons-1.r1' });
  t.like(o, { kind: 'Reservation', metadata: { name: 'web-2', namespace: 'apps', labels: { 'rear.edgeshifu.io/solver': 'web' }, ownerReferences: [{ kind: 'Solver', name: 'web', uid: 'u-1' }] }, spec: { solver: 'web', flavorID: part.id, seller: 'prov-1', partition: { cpu: '1000m', memory: '1024Mi', pods: '1' }, requestID: 'cons-1.r1' } });
  t.is(reservationName('x'.repeat(253), 12).length, 253);
  const reserved: ReservationObject = { ...o, status: { phase: 'Reserved', transactionID: 'tx-1', expiresAt: '2026-11-27T08:00:03.000Z' } };
  t.is(expiryOf(reserved, 'tx-1'), Date.parse('2026-11-27T08:00:03.000Z'));
  t.is(expiryOf(reserved, 'tx-2'), undefined, 'another transaction\'s expiry is not this one\'s');
  t.is(expiryOf(o, 'tx-1'), undefined);
  t.is(expiryOf(undefined, 'tx-1'), undefined);
  // the request id a restarted buyer sends again: only while the RESERVE is unanswered or held, and only for the same flavour
  t.is(pendingRequestOf(o, part.id), 'cons-1.r1');
  t.is(pendingRequestOf({ ...o, status: { phase: 'Reserving' } }, part.id), 'cons-1.r1');
  t.is(pendingRequestOf(reserved, part.id), 'cons-1.r1');
  t.is(pendingRequestOf(reserved, 'another-flavour'), undefined, 'another flavour is another request');
  for (const phase of ['Purchased', 'Refused', 'Expired'] as const) t.is(pendingRequestOf({ ...o, status: { phase } }, part.id), undefined, `${phase}: settled, a new request`);
  t.is(pendingRequestOf(undefined, part.id), undefined);
});
