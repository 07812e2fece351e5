// The provider's REST routes over real HTTP on 127.0.0.1: FLUIDOS's JSON shapes, the race for the
// last flavour, expiry, and clear 4xx answers to bad input (the server stays up throughout).
import test from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keyring } from '../../shared/bus/signing.ts';
import { buyerCountersigns, verifyContract } from '../../controller/rear/contract-signing.ts';
import { Market } from '../../controller/rear/market.ts';
import { rearRoutes } from '../../controller/rear/http/routes.ts';
import type { Contract } from '../../controller/rear/core/model.ts';
import type { Book } from '../../controller/rear/core/provider.ts';
import { partitionable, slice, terms } from './fixtures.ts';

const seller = generateKeyPairSync('ed25519');
const buyer = generateKeyPairSync('ed25519');

interface Provider { base: string; market: Market; clock: { now: number }; persisted: Book[] }

async function provider(t: { teardown: (f: () => void) => void }): Promise<Provider> {
  const clock = { now: 1_000_000 };
  const persisted: Book[] = [];
  const market = new Market({
    config: partitionable, terms, slice: () => slice, clock: () => clock.now,
    keyring: new Keyring({ privateKey: seller.privateKey, peers: new Map([['cons-1', buyer.publicKey]]) }),
    persist: async (book) => { await new Promise((resolve) => setImmediate(resolve)); persisted.push(book); },
  });
  const route = rearRoutes(market);
  const server: Server = createServer((req, res) => { void Promise.resolve(route(req, res)).then((done: boolean) => { if (!done) res.writeHead(404).end(); }); });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => { server.close(); });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`, market, clock, persisted };
}

async function call(url: string, method = 'GET', body?: unknown): Promise<{ status: number; json: Record<string, unknown> & { error?: { kind: string; message: string } } }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: res.status, json: await res.json() as never };
}

test('list, select, reserve and purchase in FLUIDOS shapes; the contract is signed by the seller, countersigned and verified', async (t) => {
  const p = await provider(t);
  const listed = await call(`${p.base}/flavors`);
  t.is(listed.status, 200);
  const [flavor] = listed.json as unknown as Array<Record<string, unknown>>;
  t.like(flavor, {
    providerID: 'prov-1',
    flavorType: { typeIdentifier: 'K8Slice', typeData: { characteristics: { architecture: 'amd64', cpu: '4000m', memory: '8192Mi', pods: '20', storage: '10240Mi', gpu: '0' } } },
    owner: { domain: 'domain-b', nodeID: 'prov-1', ip: 'https://127.0.0.1:9443' },
    price: { amount: '0.24', currency: 'EUR', period: 'hourly' },
    availability: true,
  });
  t.like((flavor?.flavorType as { typeData: { policies: unknown } }).typeData.policies, { partitionability: { cpuMin: '500m', cpuStep: '250m', memoryMin: '512Mi' } });
  const flavorID = flavor?.flavorID as string;

  const selector = { flavorType: 'K8Slice', filters: { architectureFilter: { name: 'Match', data: { value: 'amd64' } }, cpuFilter: { name: 'Range', data: { min: '1' } }, memoryFilter: { name: 'Range', data: { min: '1Gi', max: '100Gi' } } } };
  t.is((await call(`${p.base}/flavors?selector=${encodeURIComponent(JSON.stringify(selector))}`)).json.length, 1);
  t.is((await call(`${p.base}/flavors/selector`, 'POST', selector)).json.length, 1);
  t.is((await call(`${p.base}/flavors/selector`, 'POST', { filters: { architectureFilter: { name: 'Match', data: { value: 'arm64' } } } })).json.length, 0);

  const reserved = await call(`${p.base}/reservations`, 'POST', { flavorID, buyer: { nodeID: 'cons-1', domain: 'domain-a' }, configuration: { type: 'K8Slice', data: { cpu: '1', memory: '1Gi', pods: '2' } } });
  t.is(reserved.status, 201, JSON.stringify(reserved.json));
  t.like(reserved.json, { flavorID, buyer: { nodeID: 'cons-1' }, resources: { cpu: '1000m', memory: '1024Mi', pods: '2' }, startTime: new Date(1_000_000).toISOString(), expirationTime: new Date(1_030_000).toISOString() });
  t.is(p.persisted.length, 1, 'persisted before the answer');
  // the flavour shrank: its old id is gone, a reduced one is listed
  const after = (await call(`${p.base}/flavors`)).json as unknown as Array<{ flavorID: string; flavorType: { typeData: { characteristics: { cpu: string } } } }>;
  t.not(after[0]?.flavorID, flavorID);
  t.is(after[0]?.flavorType.typeData.characteristics.cpu, '3000m');

  const transactionID = reserved.json.transactionID as string;
  const bought = await call(`${p.base}/transactions/${transactionID}/purchase`, 'POST', { transactionID, flavorID, buyerID: 'cons-1', durationSeconds: 3600 });
  t.is(bought.status, 201, JSON.stringify(bought.json));
  t.like(bought.json, { transactionID, buyerID: 'cons-1', sellerID: 'prov-1', peeringTargetCredentials: { clusterID: 'prov-1', namespace: 'rear-cons-1' }, expirationTime: new Date(1_000_000 + 3_600_000).toISOString() });
  // the buyer checks the seller's signature and countersigns; the seller verifies both
  const contract = p.market.current().contracts[0] as Contract;
  const signatures = bought.json.signatures as { seller: string };
  const buyerRing = new Keyring({ privateKey: buyer.privateKey, peers: new Map([['prov-1', seller.publicKey]]) });
  const countersigned = buyerCountersigns(buyerRing, { contract, signatures }, 'cons-1');
  t.true(verifyContract(new Keyring({ privateKey: seller.privateKey, peers: new Map([['cons-1', buyer.publicKey]]) }), countersigned, 'prov-1'));
  t.true(verifyContract(buyerRing, countersigned, 'cons-1'));
  // a forged term (more cpu) breaks both signatures
  const forged = { ...countersigned, contract: { ...contract, resources: { ...contract.resources, cpu: 4000 } } };
  t.false(verifyContract(buyerRing, forged, 'cons-1'));
  t.throws(() => buyerCountersigns(buyerRing, { contract: forged.contract, signatures }, 'cons-1'), { message: /seller's signature is invalid/ });
  // the same purchase again: the same contract
  const again = await call(`${p.base}/transactions/${transactionID}/purchase`, 'POST', { transactionID, flavorID, buyerID: 'cons-1' });
  t.is(again.json.contractID, bought.json.contractID);
});

test('two buyers racing over HTTP for the last flavour: exactly one gets a transaction, the other a 404 that says to list again', async (t) => {
  const p = await provider(t);
  const flavorID = ((await call(`${p.base}/flavors`)).json as unknown as Array<{ flavorID: string }>)[0]?.flavorID;
  for (let round = 0; round < 10; round += 1) {
    const [a, b] = await Promise.all(['cons-a', 'cons-b'].map((nodeID) => call(`${p.base}/reservations`, 'POST', { flavorID, buyer: { nodeID } })));
    t.deepEqual([a?.status, b?.status].sort(), [201, 404]);
    const loser = a?.status === 404 ? a : b;
    t.like(loser?.json.error, { kind: 'not-found' });
    t.regex(loser?.json.error?.message ?? '', /not on sale any more .* list the flavours again/);
    t.is(p.market.current().transactions.length, 1);
    // the winner's reservation expires unpurchased: the whole flavour is back, under the same id
    p.clock.now += terms.reservationMs;
    await p.market.sweep();
    t.is(((await call(`${p.base}/flavors`)).json as unknown as Array<{ flavorID: string }>)[0]?.flavorID, flavorID);
  }
});

test('bad input gets a 4xx naming what to fix, and the server goes on serving', async (t) => {
  const p = await provider(t);
  const cases: Array<[string, string, unknown, number, RegExp]> = [
    ['/flavors?selector=nope', 'GET', undefined, 400, /selector query parameter must be JSON/],
    ['/flavors/selector', 'POST', { filters: { diskFilter: { name: 'Range', data: {} } } }, 400, /diskFilter is not a known filter/],
    ['/flavors/selector', 'POST', { filters: { cpuFilter: { name: 'Range', data: { min: 'lots' } } } }, 400, /cpuFilter\.data\.min: "lots" is not a Kubernetes quantity/],
    ['/flavors/selector', 'POST', { filters: { cpuFilter: { name: 'Range', data: { min: '2', max: '1' } } } }, 400, /cpu min 2000 is above max 1000/],
    ['/reservations', 'POST', '{not json', 400, /the body is not JSON/],
    ['/reservations', 'POST', { flavorID: 'x' }, 400, /buyer must be a JSON object/],
    ['/reservations', 'POST', { flavorID: 'gone', buyer: { nodeID: 'c' } }, 404, /flavour gone is not on sale any more/],
    ['/transactions/tx-1/purchase', 'POST', { flavorID: 'f', buyerID: 'c' }, 404, /transaction tx-1 is unknown or expired/],
    ['/transactions/tx-1/purchase', 'POST', { transactionID: 'tx-2', flavorID: 'f', buyerID: 'c' }, 400, /differs from the one in the path/],
    ['/reservations', 'GET', undefined, 405, /takes POST only/],
    ['/nowhere', 'GET', undefined, 404, /no REAR route \/api\/v2\/nowhere/],
    ['/reservations', 'POST', 'x'.repeat(70 * 1024), 413, /over 65536 bytes/],
  ];
  for (const [path, method, body, status, message] of cases) {
    const res = await call(`${p.base}${path}`, method, body);
    t.is(res.status, status, path);
    t.regex(res.json.error?.message ?? '', message, path);
  }
  const flavorID = ((await call(`${p.base}/flavors`)).json as unknown as Array<{ flavorID: string }>)[0]?.flavorID;
  const part = await call(`${p.base}/reservations`, 'POST', { flavorID, buyer: { nodeID: 'c' }, configuration: { data: { cpu: '600m', memory: '512Mi', pods: 1 } } });
  t.is(part.status, 400);
  t.regex(part.json.error?.message ?? '', /cpu 600 must be the minimum 500 plus whole steps of 250/);
  t.is((await call(`${p.base}/flavors`)).status, 200, 'still serving');
});
