// What bench/offload.ts (controllers in this process) and bench/offload-bundle.ts (controllers
// as the image runs them) share: the apps, the host's size, the baseline and the figures.
import type { ExecutionContext } from 'ava';
import { waitFor } from '../test/support/wait.ts';
import { twoComponentApp, type Member, type MemberSpec } from '../test/offload/support.ts';

/** Just enough of ava's context for the federation helpers: teardowns run at the end. */
export function benchContext(): { t: ExecutionContext; done: () => Promise<void> } {
  const teardowns: Array<() => unknown> = [];
  const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); }, passed: true } as unknown as ExecutionContext;
  return { t, done: async () => { for (const fn of teardowns.reverse()) await fn(); } };
}

/**
 * a (500m) and b, sized for the run: each app is 2 components of 100m and 64Mi, 1 pod each, and b
 * offers half of its node; the tests' fast timers but the default 60 s lease (a loaded host must
 * not look lost).
 */
export function benchMembers(requests: number, baseline: number): MemberSpec[] {
  const lease = ['--drone-lease-seconds', '60'];
  const cpu = String(Math.max(64, Math.ceil(requests * 0.2 * 2) + 8));
  const pods = String(Math.max(1_000, requests * 4 + baseline + 100));
  return [{ id: 'a', cpu: '500m', memory: '512Mi', args: lease }, { id: 'b', cpu, memory: '256Gi', pods, args: lease }];
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function row(name: string, ms: readonly number[]): string {
  return `${name.padEnd(34)} p50 ${percentile(ms, 50).toFixed(0).padStart(6)} ms   p99 ${percentile(ms, 99).toFixed(0).padStart(6)} ms   (n=${String(ms.length)})`;
}

/** A two-component app, always offloaded; in one namespace for all, each app's components need Service names of their own. */
export function benchApp(name: string, i: number): Record<string, unknown> {
  const body = twoComponentApp(name, { cpu: '100m', memory: '64Mi' }, `-${String(i)}`) as { spec: Record<string, unknown> };
  body.spec.offload = true; // always to the neighbour: this measures offloading, not local first
  return body;
}

/** One plain Deployment created on b, waited on until available. */
async function plainDeployment(b: Member, name: string): Promise<void> {
  await b.kube.apps.createNamespacedDeployment({
    namespace: 'default',
    body: { metadata: { name }, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'example.com/c:1', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } } } },
  });
  await waitFor(`${name} available`, async () => ((await b.kube.apps.readNamespacedDeployment({ namespace: 'default', name })).status?.availableReplicas === 1 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });
}

/** Kubernetes alone: a plain Deployment created on b until available, `count` times. */
export async function baseline(b: Member, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = performance.now();
    await plainDeployment(b, `plain-${String(i)}`);
    times.push(performance.now() - start);
  }
  return times;
}

/**
 * The app's floor with Kubernetes alone: its two components as two plain Deployments on b, the
 * second (api) created once the first (db) is available, as a boot dependency orders them;
 * from the first create to the second available, `count` times.
 */
export async function floorBaseline(b: Member, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = performance.now();
    await plainDeployment(b, `floor-db-${String(i)}`);
    await plainDeployment(b, `floor-api-${String(i)}`);
    times.push(performance.now() - start);
  }
  return times;
}
