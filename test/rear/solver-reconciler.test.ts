// The consumer's Solver reconciler on a real control plane, buying over a real broker from a
// provider in another domain: the phases along the way, local capacity first, and a refusal
// named in the reason.
import test, { type ExecutionContext } from 'ava';
import type { KubernetesListObject } from '@kubernetes/client-node';
import { KubeClient } from '../../shared/kube/client.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import { Informer } from '../../shared/kube/informer.ts';
import { createLogger } from '../../shared/log.ts';
import { Registry } from '../../shared/prometheus.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import { SolverReconciler, type Solver } from '../../controller/rear/solver-reconciler.ts';
import { BuyerStore } from '../../controller/rear/buyer-store.ts';
import type { PeeringCandidateObject } from '../../controller/rear/buyer-objects.ts';
import type { PurchaseRequest } from '../../controller/rear/core/provider.ts';
import type { SignedContract } from '../../controller/rear/contract-signing.ts';
import type { DiscoveryRetryPolicy } from '../../controller/rear/core/discovery-retry.ts';
import { freshNamespace, sharedKube, type Kube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { kubectl } from '../support/kubectl.ts';
import { waitFor } from '../support/wait.ts';
import { r } from './fixtures.ts';
import { federation, get } from './support.ts';

async function consumer(t: ExecutionContext, kube: Kube, namespace: string, options: { free?: ReturnType<typeof r>; discoveryRetry?: DiscoveryRetryPolicy; store?: boolean } = {}): Promise<{ phases: string[]; c: Awaited<ReturnType<typeof federation>>['c'] }> {
  const { free = r(0, 0), discoveryRetry } = options;
  await installCrds(kube);
  const established = await kubectl(kube.kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', 'crd/solvers.shifu.edgenesis.io']);
  t.is(established.code, 0, established.stderr);
  const { c } = await federation(t);
  const client = KubeClient.fromKubeconfig(kube.kubeconfigPath);
  t.teardown(() => { client.close(); });
  const path = `/apis/${API_VERSION}/namespaces/${namespace}/solvers`;
  const solvers = new Informer<Solver>({ path, watch: client.watch, list: () => client.request<KubernetesListObject<Solver>>('GET', path) });
  const phases: string[] = [];
  const note = (s: Solver): void => { const p = `${s.status?.phase ?? ''}/${s.status?.reason ?? ''}`; if (s.status?.phase !== undefined && phases.at(-1) !== p) phases.push(p); };
  solvers.on('add', note);
  solvers.on('update', note);
  // the buyer's candidates and reservations as resources, PeeringCandidates in the test's namespace
  const store = options.store === true ? { store: new BuyerStore({ client, namespace, buyer: 'cons-1' }) } : {};
  const reconciler = new SolverReconciler({ client, solvers, node: get(c, 'cons-1').node, localFree: () => free, ...store, ...(discoveryRetry === undefined ? {} : { discoveryRetry }), logger: createLogger('test', { level: process.env.EDGESHIFU_TEST_DEBUG === undefined ? 'silent' : 'debug' }), registry: new Registry() });
  await solvers.start();
  // the store's first read is tried again while the API server sets a CRD's storage up again (429: the tests install CRDs side by side)
  await waitFor('the reconciler started', async () => { await reconciler.start(); return true; });
  t.teardown(async () => { await reconciler.stop(); await solvers.stop(); });
  return { phases, c };
}

async function createSolver(kube: Kube, namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await kube.custom.createNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace, plural: 'solvers', body: { apiVersion: API_VERSION, kind: 'Solver', metadata: { name, namespace }, spec } });
}

async function statusOf(kube: Kube, namespace: string, name: string): Promise<Solver['status']> {
  const s = await kube.custom.getNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace, plural: 'solvers', name }) as Solver;
  return s.status;
}

test('an intent with no local room is discovered, reserved and bought from another domain; each phase names its step', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'rear');
  const { phases } = await consumer(t, kube, namespace);
  await createSolver(kube, namespace, 'need-1cpu', { resources: { cpu: '1', memory: '1Gi', pods: 2 }, architecture: 'amd64', durationSeconds: 3600, maxPrice: { amount: '1', currency: 'EUR', period: 'hourly' } });
  const status = await waitFor('the Solver to hold a contract', async () => { const s = await statusOf(kube, namespace, 'need-1cpu'); return s?.phase === 'Peering' ? s : undefined; });
  t.like(status, { phase: 'Peering', reason: 'WaitingForVirtualNode', provider: 'prov-1', providerDomain: 'domain-b' });
  t.regex(status.contractID ?? '', /^contract-/);
  t.like(status.conditions?.[0], { type: 'Ready', status: 'False', reason: 'WaitingForVirtualNode' });
  // the informer's watch may deliver the last phase after the read above saw it
  await waitFor('the watch to deliver Peering', () => (phases.includes('Peering/WaitingForVirtualNode') ? true : undefined));
  t.deepEqual(phases.filter((p) => !p.startsWith('Discovering/CandidatesFound')), ['Discovering/WaitingForDiscovery', 'Reserving/WaitingForReservation', 'Purchasing/WaitingForPurchase', 'Peering/WaitingForVirtualNode']);
  const printed = await kubectl(kube.kubeconfigPath, ['get', 'solvers', '-n', namespace]);
  t.regex(printed.stdout, /need-1cpu\s+Peering\s+WaitingForVirtualNode\s+prov-1\s+contract-/);
});

test('local capacity first: an intent that fits here is solved without a message', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'rear');
  await consumer(t, kube, namespace, { free: r(4000, 8192, 50) });
  await createSolver(kube, namespace, 'small', { resources: { cpu: '500m', memory: '256Mi' }, durationSeconds: 600 });
  const status = await waitFor('Solved', async () => { const s = await statusOf(kube, namespace, 'small'); return s?.phase === 'Solved' ? s : undefined; });
  t.like(status, { reason: 'LocalCapacity' });
  t.like(status.conditions?.[0], { status: 'True', reason: 'LocalCapacity' });
});

test('a ceiling below every offer: discovery finds nothing that fits; the Solver stays Pending, tries again with backoff, and fails at its deadline', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'rear');
  const { phases } = await consumer(t, kube, namespace, { discoveryRetry: { initialMs: 300, maxMs: 600 } });
  await createSolver(kube, namespace, 'too-cheap', { resources: { cpu: '1', memory: '1Gi' }, durationSeconds: 600, activeDeadlineSeconds: 8, maxPrice: { amount: '0.01', currency: 'EUR', period: 'daily' } });
  const pending = await waitFor('Pending, NoFlavourFound', async () => { const s = await statusOf(kube, namespace, 'too-cheap'); return s?.phase === 'Pending' && s.reason === 'NoFlavourFound' ? s : undefined; }, { intervalMs: 20 });
  t.regex(pending.message ?? '', /no flavour matching the intent \(\d+ attempts?\); next attempt at \d{4}-/);
  t.truthy(pending.nextAttemptTime);
  t.like(pending.conditions?.[0], { status: 'False', reason: 'NoFlavourFound' });
  // a later empty discovery, still before the deadline (the first read may already have seen the second)
  const seen = pending.discoveryAttempts ?? 1;
  const again = await waitFor('a later empty discovery', async () => { const s = await statusOf(kube, namespace, 'too-cheap'); return s?.phase === 'Pending' && (s.discoveryAttempts ?? 0) > seen ? s : undefined; }, { intervalMs: 20 });
  t.true(Date.parse(again.nextAttemptTime ?? '') > Date.parse(pending.nextAttemptTime ?? ''), 'the next attempt moved on');
  const failed = await waitFor('Failed at the deadline', async () => { const s = await statusOf(kube, namespace, 'too-cheap'); return s?.phase === 'Failed' ? s : undefined; });
  t.like(failed, { reason: 'DeadlineExceeded' });
  t.true((failed.discoveryAttempts ?? 0) >= 2);
  t.is(failed.nextAttemptTime, undefined);
  t.true(phases.includes('Pending/NoFlavourFound') && phases.includes('Discovering/WaitingForDiscovery'), phases.join(' → '));
  const printed = await kubectl(kube.kubeconfigPath, ['get', 'solvers', '-n', namespace]);
  t.regex(printed.stdout, /too-cheap\s+Failed\s+DeadlineExceeded/);
});

test('the PeeringCandidate a Solver reserves names it in status.reservedBy until the reservation ends', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'rear');
  const { c } = await consumer(t, kube, namespace, { store: true });
  const market = get(c, 'prov-1').market;
  if (market === undefined) throw new Error('prov-1 sells nothing');
  // the purchase waits until released, so the reservation is seen held
  const purchase = market.purchase.bind(market);
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  market.purchase = async (request: PurchaseRequest): Promise<SignedContract> => { await gate; return purchase(request); };
  const candidates = async (): Promise<PeeringCandidateObject[]> => ((await kube.custom.listNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace, plural: 'peeringcandidates' })) as { items: PeeringCandidateObject[] }).items;
  const reservedBy = async (flavour: string): Promise<string | undefined> => (await candidates()).find((x) => x.metadata?.name === flavour)?.status?.reservedBy;
  // a read the API server answers (429 while a CRD's storage is set up again: another test installs CRDs too)
  const read = async <T>(what: string, get: () => Promise<T>): Promise<T> => (await waitFor(what, async () => ({ value: await get() }))).value;

  await createSolver(kube, namespace, 'hold', { resources: { cpu: '1', memory: '1Gi', pods: 1 }, durationSeconds: 600, remoteOnly: true });
  const purchasing = await waitFor('the Solver waiting for its purchase', async () => { const s = await statusOf(kube, namespace, 'hold'); return s?.phase === 'Purchasing' ? s : undefined; });
  const flavour = purchasing.flavorID ?? '';
  t.is(await read('the candidate', () => reservedBy(flavour)), `${namespace}/hold`, 'the candidate names the Solver reserving it');
  t.deepEqual((await read('the candidates', candidates)).filter((x) => x.metadata?.name !== flavour && x.status?.reservedBy !== undefined), [], 'no other candidate is reserved');
  const printed = await waitFor('kubectl get peeringcandidates', async () => { const p = await kubectl(kube.kubeconfigPath, ['get', 'peeringcandidates', '-n', namespace]); return p.code === 0 ? p : undefined; });
  t.regex(printed.stdout, new RegExp(`${flavour}\\s+prov-1\\s+domain-b\\s+\\S+\\s+${namespace}/hold`));

  release();
  await waitFor('the Solver to hold a contract', async () => { const s = await statusOf(kube, namespace, 'hold'); return s?.phase === 'Peering' ? s : undefined; });
  t.is(await read('the candidate', () => reservedBy(flavour)), undefined, 'the reservation ended in a purchase: the candidate is no longer reserved');
});

test('a seller that keeps refusing with conflict (a race): tried again, not forever; with a deadline Pending between attempts past the attempts, then DeadlineExceeded', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'rear');
  const { c, phases } = await consumer(t, kube, namespace);
  const market = get(c, 'prov-1').market;
  if (market === undefined) throw new Error('prov-1 sells nothing');
  // every RESERVE finds the flavour short (as when another buyer's reservation took part of it), over the real broker
  // attempts counted by request id: a RESERVE resent after a reply timeout (under load) keeps its id
  const attempts = new Set<string>();
  market.reserve = (request): Promise<never> => { attempts.add(request.requestId ?? `no id ${String(attempts.size)}`); return Promise.reject(new EdgeshifuError('conflict', 'flavour f cannot hold 1000m cpu: short of cpu')); };
  await createSolver(kube, namespace, 'no-deadline', { resources: { cpu: '1', memory: '1Gi' }, durationSeconds: 600, remoteOnly: true });
  const ended = await waitFor('Failed after its attempts', async () => { const s = await statusOf(kube, namespace, 'no-deadline'); return s?.phase === 'Failed' ? s : undefined; });
  t.like(ended, { reason: 'ReservationRefused', attempts: 3 });
  t.regex(ended.message ?? '', /short of cpu \(after 3 attempts\)/);
  t.is(attempts.size, 3, 'three RESERVE attempts, then no more');

  await createSolver(kube, namespace, 'deadline', { resources: { cpu: '1', memory: '1Gi' }, durationSeconds: 600, remoteOnly: true, activeDeadlineSeconds: 6 });
  const waiting = await waitFor('Pending until the next attempt', async () => { const s = await statusOf(kube, namespace, 'deadline'); return s?.phase === 'Pending' && s.reason === 'ReservationRefused' ? s : undefined; }, { intervalMs: 20 });
  t.regex(waiting.message ?? '', /short of cpu \(\d+ attempts?\); next attempt at \d{4}-/);
  t.truthy(waiting.nextAttemptTime);
  const failed = await waitFor('Failed at the deadline', async () => { const s = await statusOf(kube, namespace, 'deadline'); return s?.phase === 'Failed' ? s : undefined; });
  t.like(failed, { reason: 'DeadlineExceeded' });
  t.regex(failed.message ?? '', /short of cpu \(after \d+ attempts\); the Solver's deadline/);
  t.true((failed.attempts ?? 0) > 3, `tried until the deadline, not 3 times: ${failed.attempts ?? 0}`);
  t.is(failed.nextAttemptTime, undefined);
  t.true(phases.includes('Pending/ReservationRefused'), phases.join(' → '));
});

test('refusals waiting cannot change end the Solver Failed at once: a purchase longer than the seller sells, a seller that forbids this buyer', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'rear');
  const { c } = await consumer(t, kube, namespace, { store: true });
  const market = get(c, 'prov-1').market;
  if (market === undefined) throw new Error('prov-1 sells nothing');
  // two days, the seller sells one at most (test/rear/fixtures.ts): its own answer, over the real broker
  await createSolver(kube, namespace, 'too-long', { resources: { cpu: '1', memory: '1Gi' }, durationSeconds: 172_800, remoteOnly: true });
  const invalid = await waitFor('Failed, PurchaseInvalid', async () => { const s = await statusOf(kube, namespace, 'too-long'); return s?.phase === 'Failed' ? s : undefined; });
  t.like(invalid, { reason: 'PurchaseInvalid', attempts: 1 });
  t.regex(invalid.message ?? '', /^prov-1 refused the request as invalid: contract duration must be .* at most 86400000 ms, got 172800000\. Trying again changes nothing: change the Solver's spec/);
  const reservations = (await kube.custom.listNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace, plural: 'reservations' }) as { items: Array<{ metadata?: { name?: string }; status?: { phase?: string } }> }).items;
  t.deepEqual(reservations.map((x) => `${x.metadata?.name ?? ''}:${x.status?.phase ?? ''}`), ['too-long-1:Refused'], 'one reservation, refused');

  let asked = 0;
  market.reserve = (): Promise<never> => { asked += 1; return Promise.reject(new EdgeshifuError('forbidden', 'cons-1 may not buy here')); };
  await createSolver(kube, namespace, 'not-here', { resources: { cpu: '1', memory: '1Gi' }, durationSeconds: 600, remoteOnly: true });
  const forbidden = await waitFor('Failed, ReservationForbidden', async () => { const s = await statusOf(kube, namespace, 'not-here'); return s?.phase === 'Failed' ? s : undefined; });
  t.like(forbidden, { reason: 'ReservationForbidden', attempts: 1 });
  t.regex(forbidden.message ?? '', /^prov-1 refused this cluster: cons-1 may not buy here\. Trying again changes nothing: add prov-1 to spec\.deniedProviders/);
  t.is(asked, 1, 'asked once');
});
