// REAR's intent → pod Running row of `npm run bench:rear`: the real controllers on three real
// control planes (test/rear/controllers.ts: cons-a behind supernode sn-a, prov-b the seller, DRONE
// on, every message signed), in this process. Per intent, one after another: a Solver created on
// cons-a (discovery, reservation, purchase, the virtual node, the Allocation Active) → Solved, then
// a one-replica Deployment tolerating its node's taint → the consumer's pod Running on the virtual
// node (reflected from prov-b). Baseline in the same run: a plain one-replica Deployment created on
// prov-b → its pod Running.
import { loadavg } from 'node:os';
import type { V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../../test/support/wait.ts';
import type { Kube } from '../../test/support/cluster.ts';
import { APPS } from '../../test/offload/support.ts';
import { carriedDeployment } from '../../test/rear/peering-support.ts';
import { createSolver, rearFederation, rearOf, solverStatus, type RearFederation } from '../../test/rear/controllers.ts';
import { sellerAccount, solvedBySeller, storedContracts, watchBooks } from '../../test/rear/accounting.ts';
import type { Member } from '../../test/offload/support.ts';
import { toQuantities } from '../../controller/rear/quantities.ts';
import { cpuMillis } from '../../shared/kube/quantity.ts';
import { benchContext, percentile } from '../offload-common.ts';

const POLL = { timeoutMs: 180_000, intervalMs: 10 };

export interface IntentFigures { solved: number[]; running: number[]; baseline: number[]; loadBefore: string; loadAfter: string; soldOut?: string; books: string[] }

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

/** What prov-b's slice holds when an intent finds nothing: offered, held by contracts and reservations, by DRONE, and on sale. */
async function soldOut(prov: RearFederation['prov'], intent: string, message: string): Promise<string> {
  const rear = rearOf(prov);
  const agent = prov.controller.controller.offloader?.federation.agent;
  const book = rear.market?.current();
  const cpu = (r: { cpu: number } | undefined): string => toQuantities({ cpu: r?.cpu ?? 0, memory: 0, pods: 0, storage: 0, gpu: 0 }).cpu;
  const held = (book?.contracts ?? []).reduce((a, c) => a + c.resources.cpu, 0) + (book?.transactions ?? []).reduce((a, x) => a + x.resources.cpu, 0);
  const drone = (agent?.hosted() ?? []).filter((e) => !e.app.startsWith('rear.')).reduce((a, e) => a + e.resources.cpu, 0);
  const onSale = (rear.market?.flavours() ?? []).map((f) => `${f.id} cpu ${cpu(f.characteristics)} memory ${String(f.characteristics.memory)}Mi pods ${String(f.characteristics.pods)}`).join('; ');
  // the pods that hold prov-b's node: carried ones (labelled with their consumer) are its contracts' and not counted by DRONE
  const pods = (await prov.kube.core.listPodForAllNamespaces()).items.filter((p) => p.spec?.nodeName !== undefined && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  const podCpu = (carried: boolean): string => cpu({ cpu: pods.filter((p) => (p.metadata?.labels?.['rear.edgeshifu.io/consumer'] !== undefined) === carried).flatMap((p) => p.spec?.containers ?? []).reduce((a, c) => a + cpuMillis(c.resources?.requests?.cpu ?? '0'), 0) });
  const free = agent === undefined ? undefined : (agent as unknown as { core?: { state?: { free?: { cpu: number } } } }).core?.state?.free;
  return `${intent} found no flavour (${message}): prov-b's pods request ${podCpu(false)} (not carried) and ${podCpu(true)} (carried, ${String(pods.filter((p) => p.metadata?.labels?.['rear.edgeshifu.io/consumer'] !== undefined).length)} pods); DRONE counts free cpu ${cpu(free)}; prov-b offers cpu ${cpu(agent?.offered())} of its slice, ${String(book?.contracts.length ?? 0)} contracts and ${String(book?.transactions.length ?? 0)} reservations hold ${cpu({ cpu: held })}, DRONE's hosted work ${cpu({ cpu: drone })}; on sale: ${onSale === '' ? 'nothing' : onSale}`;
}

/**
 * Each seller's book at the end: a supernode sells its own slice too and answers a discovery with
 * it first (sn-a: 500m in one 500m partition, its least), so the Solvers' sum is not prov-b's.
 */
async function books(cons: Member, sellers: readonly Member[], breach: string | undefined, samples: number): Promise<string[]> {
  const solved = await solvedBySeller(cons);
  const lines = await Promise.all(sellers.map(async (m) => {
    const a = sellerAccount(m);
    const named = solved.get(m.id) ?? [];
    const same = named.join() === a.contractIds.join() && (await storedContracts(m)).join() === a.contractIds.join();
    return `${m.id}: ${String(a.contractIds.length)} contracts hold ${String(a.contracts)}m and reservations ${String(a.reservations)}m of a ${String(a.sellable)}m slice; ${String(named.length)} Solved Solvers name it; their contracts ${same ? 'are' : 'are NOT'} exactly its book and its Contract resources`;
  }));
  return [...lines, `the invariant (contracts + reservations <= slice, every seller) sampled ${String(samples)} times: ${breach ?? 'never broken'}`];
}

async function runningPod(kube: Kube, namespace: string, app: string, node?: string): Promise<V1Pod> {
  return waitFor(`${app} Running`, async () => {
    const pods = (await kube.core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items;
    return pods.find((p) => p.status?.phase === 'Running' && (node === undefined || p.spec?.nodeName === node));
  }, POLL);
}

export async function intentRow(intents: number, baselines: number): Promise<IntentFigures> {
  const { t, done } = benchContext();
  const loadBefore = load();
  try {
    // partitions from 250m (the default least is 500m: eight intents would take the whole slice)
    const { cons, sn, prov } = await rearFederation(t, ['--rear-min', 'cpu=250m,memory=256Mi,pods=1']);
    const watch = watchBooks([sn, prov]);
    let stopped: string | undefined;
    await prov.kube.core.createNamespace({ body: { metadata: { name: 'bench' } } });
    const solved: number[] = [];
    const running: number[] = [];
    for (let i = 0; i < intents; i += 1) {
      const name = `intent-${String(i)}`;
      const started = Date.now();
      // 250m each: sixteen intents fit in prov-b's slice (4 cpu); 10 min, so no contract ends during the run
      await createSolver(cons.kube, name, { resources: { cpu: '250m', memory: '256Mi', pods: 1 }, durationSeconds: 600, remoteOnly: true, maxPrice: { amount: '5', currency: 'EUR', period: 'hourly' } });
      const status = await waitFor(`${name} Solved`, async () => {
        const s = await solverStatus(cons.kube, name);
        // three empty discoveries in a row (5 s, then 10 s apart): the provider is sold out, said below
        if (s?.reason === 'NoFlavourFound' && (s.discoveryAttempts ?? 0) >= 3) return s;
        // the last state seen is in the error, should the wait run out
        if (s?.phase !== 'Solved') throw new Error(`${name} ${s?.phase ?? ''}/${s?.reason ?? ''}: ${s?.message ?? ''}`);
        return s;
      }, POLL);
      if (status.phase !== 'Solved') { stopped = await soldOut(prov, name, status.message ?? ''); break; }
      solved.push(Date.now() - started);
      const node = status.virtualNode ?? '';
      // prov-b's Federation for cons-a hosts images under example.com/ only
      const body = carriedDeployment(name, APPS, { node, contractId: status.contractID ?? '' });
      const container = body.spec?.template.spec?.containers[0];
      if (container !== undefined) container.image = 'example.com/web:1';
      await cons.kube.apps.createNamespacedDeployment({ namespace: APPS, body });
      await runningPod(cons.kube, APPS, name, node);
      running.push(Date.now() - started);
    }
    const seen = await watch.stop();
    const accounts = await books(cons, [sn, prov], seen.breach, seen.samples);
    const baseline: number[] = [];
    for (let i = 0; i < baselines; i += 1) {
      const name = `plain-${String(i)}`;
      const started = Date.now();
      const body = carriedDeployment(name, 'bench', { node: '', contractId: 'none' });
      delete body.spec?.template.spec?.nodeSelector;
      await prov.kube.apps.createNamespacedDeployment({ namespace: 'bench', body });
      await runningPod(prov.kube, 'bench', name);
      baseline.push(Date.now() - started);
    }
    return { solved, running, baseline, loadBefore, loadAfter: load(), books: accounts, ...(stopped === undefined ? {} : { soldOut: stopped }) };
  } finally {
    await done();
  }
}

export function printIntentRow(f: IntentFigures): void {
  const row = (label: string, ms: readonly number[]): string => `${label.padEnd(46)} p50 ${percentile(ms, 50).toFixed(0).padStart(6)} ms   p99 ${percentile(ms, 99).toFixed(0).padStart(6)} ms   (n=${ms.length})`;
  console.log(`REAR intent → pod Running, three control planes, the real controllers; load average before ${f.loadBefore}`);
  console.log(row('Solver created → Solved (virtual node Ready)', f.solved));
  console.log(row('Solver created → pod Running on the virtual node', f.running));
  console.log(row('baseline: plain Deployment on the provider', f.baseline));
  console.log(`intent → pod Running p50 / baseline p50: ×${(percentile(f.running, 50) / percentile(f.baseline, 50)).toFixed(2)}; p99: ×${(percentile(f.running, 99) / percentile(f.baseline, 99)).toFixed(2)}`);
  if (f.soldOut !== undefined) console.log(`stopped after ${String(f.solved.length)} intents: ${f.soldOut}`);
  for (const line of f.books) console.log(line);
  console.log(`load average after ${f.loadAfter}`);
}
