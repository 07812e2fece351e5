// REAR's peering end to end: two real control planes with a KWOK node on the provider, aedes on
// 127.0.0.1, the consumer's peering and the provider's PeeringHost in this process, both on the
// controller's ServiceAccount token (test/rear/peering-support.ts). Per pod: a contract bought
// from the provider's Market, its Contract resource and a one-replica Deployment tolerating its
// taint created at once on the consumer → the virtual node Ready → the consumer's pod Running on
// it (the provider's pod Running in rear-cons, its status reflected back). One after another.
// Baseline in the same run: a plain one-replica Deployment created on the provider → its pod Running.
// Usage: npm run bench:rear-peering -- [--pods 30] [--baseline 30]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../test/support/wait.ts';
import type { Kube } from '../test/support/cluster.ts';
import { buy, carriedDeployment, createContract, IMAGES, peeringWorld } from '../test/rear/peering-support.ts';

const { values } = parseArgs({ options: { pods: { type: 'string', default: '30' }, baseline: { type: 'string', default: '30' } } });
const PODS = Number(values.pods);
const BASELINE = Number(values.baseline);
const POLL = { timeoutMs: 120_000, intervalMs: 10 };

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function row(name: string, ms: readonly number[]): string {
  return `${name.padEnd(44)} p50 ${percentile(ms, 50).toFixed(0).padStart(6)} ms   p99 ${percentile(ms, 99).toFixed(0).padStart(6)} ms   (n=${ms.length})`;
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

async function runningPod(kube: Kube, namespace: string, app: string): Promise<V1Pod> {
  return waitFor(`${app} Running`, async () => {
    const pods = (await kube.core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items;
    return pods.find((p) => p.status?.phase === 'Running');
  }, POLL);
}

async function main(): Promise<void> {
  console.log(`rear-peering: ${PODS} pods, baseline ${BASELINE}; load average before ${load()}`);
  const world = await peeringWorld({ offered: { cpu: 500 * (PODS + 2), memory: 512 * (PODS + 2), pods: PODS + 2 } });
  try {
    await world.consumer.core.createNamespace({ body: { metadata: { name: 'bench' } } });
    await world.provider.core.createNamespace({ body: { metadata: { name: 'bench' } } });
    const nodeReady: number[] = [];
    const total: number[] = [];
    for (let i = 0; i < PODS; i += 1) {
      const signed = await buy(world.market, { cpu: 500, memory: 512, pods: 1 });
      const id = signed.contract.contractId;
      const node = `rear-${id}`;
      const started = Date.now();
      await createContract(world.consumer, signed, `bench-${String(i)}`);
      await world.consumer.apps.createNamespacedDeployment({ namespace: 'bench', body: carriedDeployment(`p${String(i)}`, 'bench', { node, contractId: id }) });
      await waitFor('the virtual node Ready', async () => {
        const n = await world.consumer.core.readNode({ name: node }).catch(() => undefined);
        return n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? true : undefined;
      }, POLL);
      nodeReady.push(Date.now() - started);
      await runningPod(world.consumer, 'bench', `p${String(i)}`);
      total.push(Date.now() - started);
    }
    const baseline: number[] = [];
    for (let i = 0; i < BASELINE; i += 1) {
      const started = Date.now();
      const body = carriedDeployment(`b${String(i)}`, 'bench', { node: 'prov-node-1', contractId: 'none' });
      await world.provider.apps.createNamespacedDeployment({ namespace: 'bench', body });
      await runningPod(world.provider, 'bench', `b${String(i)}`);
      baseline.push(Date.now() - started);
    }
    console.log(row('contract created → virtual node Ready', nodeReady));
    console.log(row('contract created → pod Running on it', total));
    console.log(row('baseline: plain Deployment on the provider', baseline));
    console.log(`end-to-end p50 / baseline p50: ×${(percentile(total, 50) / percentile(baseline, 50)).toFixed(2)}; p99: ×${(percentile(total, 99) / percentile(baseline, 99)).toFixed(2)}`);
    console.log(`load average after ${load()}; image ${IMAGES}nginx:1.27 on KWOK (no container runs)`);
  } finally {
    await world.stop();
  }
}

await main();
// the clusters' child processes and sockets are stopped; what is left (timers of the stopped clients) must not hold the process
process.exit(0);
