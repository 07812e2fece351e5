// What running apps cost while nothing happens to them (README, "Scale" and "Leases"). The origin
// renews every lease each lease/3: in one message per host, answered by one; neither side
// reconciles an app for it, and nothing is written per renewal (the host stores its origin's
// renewals once per half lease, on the hosted namespace). Counted, not timed: the messages, the
// reconciles and the API writes of both controllers over renewal rounds longer than a lease, on
// two real control planes; then a full lease lost on the way heals by the next round.
import test from 'ava';
import type { Registry } from '../../shared/prometheus.ts';
import type { DroneAgent } from '../../controller/drone/agent.ts';
import { KubeClient } from '../../shared/kube/client.ts';
import { waitFor } from '../support/wait.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import { RENEWED_ANNOTATION } from '../../controller/offload/host-renewals.ts';
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

/** The offloading messages an agent sends from now on, by kind (its bus counters also count what its relay forwards). */
function countSent(agent: DroneAgent): Map<string, number> {
  const sent = new Map<string, number>();
  const send = agent.send.bind(agent);
  agent.send = (body) => {
    sent.set(body.kind, (sent.get(body.kind) ?? 0) + 1);
    send(body);
  };
  return sent;
}

/** Every write (not GET) the controllers' clients send, as `<server> <METHOD> <path>`, from now until stop(). */
function countWrites(): { writes: string[]; stop: () => void } {
  const writes: string[] = [];
  const original = Reflect.get<KubeClient, 'request'>(KubeClient.prototype, 'request');
  KubeClient.prototype.request = function counted<T>(this: KubeClient, method: string, path: string, options?: Parameters<KubeClient['request']>[2]): Promise<T> {
    if (method !== 'GET') writes.push(`${(this as unknown as { url: URL }).url.host} ${method} ${path.split('?')[0] ?? ''}`);
    return original.call(this, method, path, options) as Promise<T>;
  };
  return { writes, stop: () => { KubeClient.prototype.request = original; } };
}

const APP_COUNT = 6;
const ROUNDS = 4; // lease 6 s, a round every 2 s: 8 s, longer than a lease

test.serial('renewal rounds of running apps: one message per host each way, no reconcile, no write per renewal, and no lease expires', async (t) => {
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

  const agentOf = (m: typeof a): DroneAgent => {
    const agent = m.controller.controller.offloader?.federation.agent;
    if (agent === undefined) throw new Error(`${m.id} runs no offloading`);
    return agent;
  };
  const sent = { a: countSent(agentOf(a)), b: countSent(agentOf(b)) };
  const published = (m: typeof a, kind: string): number => sent[m.id === 'a' ? 'a' : 'b'].get(kind) ?? 0;
  const origin = (): number => counter(a.controller.registry, 'edgeshifu_reconcile_total', 'controller="dronefederateddeployment"');
  const host = (): number => counter(b.controller.registry, 'edgeshifu_reconcile_total', 'controller="hostrequest"');
  // a round that started before the count is left out: the count starts with the next one
  const first = published(a, 'lease-renewal');
  await waitFor('a renewal round', () => (published(a, 'lease-renewal') > first ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
  const count = countWrites();
  t.teardown(count.stop);
  const start = {
    renewals: published(a, 'lease-renewal'), leases: published(a, 'lease'), answers: published(b, 'lease-renewed'), statuses: published(b, 'host-status'),
    origin: origin(), host: host(), at: Date.now(),
  };
  await waitFor(`${String(ROUNDS)} renewal rounds`, () => (published(a, 'lease-renewal') - start.renewals >= ROUNDS ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });
  // the last round's answer is on its way
  await waitFor('b to answer every round', () => (published(b, 'lease-renewed') - start.answers >= ROUNDS ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
  count.stop();
  const renewals = published(a, 'lease-renewal') - start.renewals;
  const seen = {
    renewals, leases: published(a, 'lease') - start.leases, answers: published(b, 'lease-renewed') - start.answers, statuses: published(b, 'host-status') - start.statuses,
    origin: origin() - start.origin, host: host() - start.host, writes: count.writes,
  };
  t.log(`${String(renewals)} rounds of ${String(components)} leases: ${JSON.stringify(seen)}`);
  // before: a lease per component per round (2 per app) and one host-status answering each
  t.is(renewals, ROUNDS, 'one renewal per host and round, whatever the number of apps');
  t.is(seen.leases, 0, 'no full lease: nothing changed');
  t.true(seen.answers <= renewals + 1, `one answer per renewal: ${String(seen.answers)}`);
  t.is(seen.statuses, 0, 'no single host-status: the answers carry them');
  t.true(seen.origin < APP_COUNT, `origin reconciles: ${String(seen.origin)}, fewer than one per app`);
  t.true(seen.host < components, `host reconciles: ${String(seen.host)}, fewer than one per component`);
  // before: a HostRequest status write per component every half lease (24 here), and their echoes
  const hostRequestWrites = count.writes.filter((w) => w.includes('/hostrequests/'));
  t.deepEqual(hostRequestWrites, [], 'no HostRequest written for a renewal');
  const other = count.writes.filter((w) => !w.includes('/namespaces/drone-a ') && !w.endsWith('/namespaces/drone-a'));
  t.deepEqual(other, [], 'nothing else written either');
  t.true(count.writes.length <= renewals, `the stored renewal: one namespace write per half lease (${String(count.writes.length)})`);

  // the leases were taken: none expired over more than a lease, and the stored renewal moved on
  const namespace = (await b.kube.core.readNamespace({ name: 'drone-a' }));
  t.true(Date.parse(namespace.metadata?.annotations?.[RENEWED_ANNOTATION] ?? '') >= start.at - 1_000, 'b stored a renewal of a\'s leases during the rounds');
  const after = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
  t.deepEqual(after.map((r) => r.metadata.uid).sort(), before.map((r) => r.metadata.uid).sort(), 'the same HostRequests: none expired and made again');
  t.true(after.every((r) => r.status?.phase === 'LAUNCHED'), 'every component still LAUNCHED');
  for (let i = 0; i < APP_COUNT; i += 1) t.is((await readApp(a.kube, `app-${String(i)}`))?.status?.phase, 'RUNNING');

  // a full lease lost on the way: b holds other terms than a sent (its leaseSeconds, here). The
  // next round's digest differs, b says stale, and a sends that one lease in full again.
  const lost = after[0];
  if (lost === undefined) throw new Error('no HostRequest');
  const leasesBefore = published(a, 'lease');
  await b.kube.custom.patchNamespacedCustomObject({
    group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: 'drone-a', plural: 'hostrequests', name: lost.metadata.name ?? '',
    body: [{ op: 'replace', path: '/spec/leaseSeconds', value: 7 }],
  });
  const healed = await waitFor('b to hold a\'s terms again', async () => {
    const now = (await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a')).find((r) => r.metadata.uid === lost.metadata.uid);
    return now?.spec.leaseSeconds === 6 ? now : undefined;
  }, { timeoutMs: 30_000 });
  t.is(published(a, 'lease') - leasesBefore, 1, 'that one lease sent in full, no other');
  t.is(healed.status?.phase, 'LAUNCHED');
});
