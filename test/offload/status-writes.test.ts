// How often the origin writes a DroneFederatedDeployment's status on its way to RUNNING, and
// whether those writes lose races (409): counted on two real control planes, apps made at once.
// Before: a reconcile woken before the watch delivered the origin's own last write compared with
// the older status and wrote over its resourceVersion (a 409, then the same status again), and a
// component's "assigned to" message came and went (one more write); 11 writes and 2 conflicts
// for one of four apps here.
import test from 'ava';
import { KubeApiError, KubeClient } from '../../shared/kube/client.ts';
import { waitFor } from '../support/wait.ts';
import { createApp, readApp, startFederation, twoComponentApp } from './support.ts';

interface Write { readonly app: string; readonly body: unknown; conflict: boolean }

/** The status writes of DroneFederatedDeployments the controllers send from now until stop(), with their outcome. */
function countStatusWrites(): { writes: Write[]; stop: () => void } {
  const writes: Write[] = [];
  const original = Reflect.get<KubeClient, 'request'>(KubeClient.prototype, 'request');
  KubeClient.prototype.request = async function counted<T>(this: KubeClient, method: string, path: string, options?: Parameters<KubeClient['request']>[2]): Promise<T> {
    const app = /\/dronefederateddeployments\/([^/?]+)\/status/.exec(path)?.[1];
    const write: Write | undefined = app === undefined || method === 'GET' ? undefined : { app, body: options?.body, conflict: false };
    if (write !== undefined) writes.push(write);
    try {
      return await (original.call(this, method, path, options) as Promise<T>);
    } catch (err) {
      if (write !== undefined && err instanceof KubeApiError && err.code === 409) write.conflict = true;
      throw err;
    }
  };
  return { writes, stop: () => { KubeClient.prototype.request = original; } };
}

const APP_COUNT = 4;

test.serial('the origin writes a deployment\'s status only when it changes, without conflicts', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '16Gi', pods: '200' }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  await waitFor('a to hear b', () => (a.controller.controller.offloader?.federation.agent.providers().includes('b') === true ? true : undefined), { timeoutMs: 30_000 });
  const count = countStatusWrites();
  t.teardown(count.stop);
  await Promise.all(Array.from({ length: APP_COUNT }, async (_, i) => {
    const body = twoComponentApp(`app-${String(i)}`, { cpu: '100m', memory: '64Mi' }, `-${String(i)}`) as { spec: Record<string, unknown> };
    body.spec.offload = true;
    await createApp(a.kube, body);
  }));
  for (let i = 0; i < APP_COUNT; i += 1) {
    await waitFor(`app-${String(i)} RUNNING`, async () => ((await readApp(a.kube, `app-${String(i)}`))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 120_000 });
  }
  count.stop();
  const statusOf = (w: Write): unknown => (w.body as { status?: unknown }).status;
  const conflicts = count.writes.filter((w) => w.conflict);
  t.log(`${String(count.writes.length)} status writes for ${String(APP_COUNT)} apps, ${String(conflicts.length)} conflicts`);
  for (const w of conflicts) t.log(`409 ${w.app} ${JSON.stringify(statusOf(w))}`);
  t.deepEqual(conflicts.map((w) => w.app), [], 'no write lost a race with the origin\'s own previous one');
  for (let i = 0; i < APP_COUNT; i += 1) {
    const writes = count.writes.filter((w) => w.app === `app-${String(i)}`);
    const components = (s: unknown): string => JSON.stringify(((s as { components?: Array<{ name: string; phase: string; message?: string }> }).components ?? []).map((c) => [c.name, c.phase, c.message]));
    // each write says something new: a phase of the deployment or of one of its components
    for (const [n, w] of writes.entries()) {
      if (n === 0) continue;
      const before = statusOf(writes[n - 1] ?? w) as { phase?: string };
      const now = statusOf(w) as { phase?: string };
      t.true(before.phase !== now.phase || components(before) !== components(now), `app-${String(i)} write ${String(n)} repeats the one before: ${JSON.stringify(now)}`);
    }
    // SCHEDULING, PENDING, then at most the four phases of each of the two components on b
    t.true(writes.length <= 10, `app-${String(i)}: ${String(writes.length)} status writes`);
    t.is((statusOf(writes.at(-1) ?? writes[0] ?? { app: '', body: {}, conflict: false }) as { phase?: string }).phase, 'RUNNING');
  }
});
