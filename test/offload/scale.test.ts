// What running apps cost while nothing happens to them: the origin renews every lease each
// lease/3 and the host answers each. That round must not reconcile every app on both sides: a
// cost per app that grows with the number of apps (README, "Scale"). Counted, not timed: the
// reconciles both controllers do over three renewal rounds, on two real control planes.
import test from 'ava';
import type { Registry } from '../../shared/prometheus.ts';
import { waitFor } from '../support/wait.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import { createApp, listCustom, readApp, startFederation, twoComponentApp } from './support.ts';

/** A counter's value for the samples whose labels include `label`. */
function counter(registry: Registry, name: string, label: string): number {
  let sum = 0;
  for (const line of registry.metrics().split('\n')) {
    const match = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (match?.[1] === name && match[2]?.includes(label) === true) sum += Number(match[3]);
  }
  return sum;
}

const APP_COUNT = 6;

test.serial('a renewal round of running apps renews every lease on the host without reconciling the apps on either side', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '16Gi', pods: '200' }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  await waitFor('a to hear b', () => (a.controller.controller.offloader?.federation.agent.providers().includes('b') === true ? true : undefined), { timeoutMs: 30_000 });
  for (let i = 0; i < APP_COUNT; i += 1) {
    const body = twoComponentApp(`app-${String(i)}`, { cpu: '100m', memory: '64Mi' }, `-${String(i)}`) as { spec: Record<string, unknown> };
    body.spec.offload = true;
    await createApp(a.kube, body);
  }
  for (let i = 0; i < APP_COUNT; i += 1) {
    await waitFor(`app-${String(i)} RUNNING`, async () => ((await readApp(a.kube, `app-${String(i)}`))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 120_000 });
  }
  const components = APP_COUNT * 2;
  const before = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
  t.is(before.length, components, 'one HostRequest per component on b');
  t.true(before.every((r) => r.status?.phase === 'LAUNCHED'));

  const leases = (): number => counter(a.controller.registry, 'edgeshifu_bus_messages_published_total', 'kind="lease"');
  const origin = (): number => counter(a.controller.registry, 'edgeshifu_reconcile_total', 'controller="dronefederateddeployment"');
  const host = (): number => counter(b.controller.registry, 'edgeshifu_reconcile_total', 'controller="hostrequest"');
  const start = { leases: leases(), origin: origin(), host: host(), at: Date.now() };
  // three renewal rounds: every component's lease sent three more times (lease 6 s: a round every 2 s)
  await waitFor('three renewal rounds', () => (leases() - start.leases >= 3 * components ? true : undefined), { timeoutMs: 60_000, intervalMs: 50 });
  const originReconciles = origin() - start.origin;
  const hostReconciles = host() - start.host;
  t.log(`over three rounds of ${String(components)} leases: ${String(originReconciles)} origin and ${String(hostReconciles)} host reconciles`);
  // before: each lease reconciled its HostRequest and each answer its deployment (≥ 3 × 12 and 3 × 6)
  t.true(originReconciles < APP_COUNT, `origin reconciles over three renewal rounds: ${String(originReconciles)}, fewer than one per app`);
  t.true(hostReconciles < components, `host reconciles over three renewal rounds: ${String(hostReconciles)}, fewer than one per component`);

  // the leases were still taken: every HostRequest's stored renewal moved on (half a lease apart), none expired
  const after = await waitFor('every stored renewal newer than the rounds\' start', async () => {
    const now = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
    return now.length === components && now.every((r) => new Date(r.status?.lastRenewTime ?? 0).getTime() >= start.at - 1_000) ? now : undefined;
  }, { timeoutMs: 30_000 });
  t.true(after.every((r) => r.status?.phase === 'LAUNCHED'), 'every component still LAUNCHED');
  for (let i = 0; i < APP_COUNT; i += 1) t.is((await readApp(a.kube, `app-${String(i)}`))?.status?.phase, 'RUNNING');
});
