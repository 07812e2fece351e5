// The DRONE agent lives under the controller's leader election: of two
// controller processes of one cluster only the leader runs the broker and the agent; when it
// dies the other takes over, what was offloaded keeps running, and new work is offloaded.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { controllerProcess } from '../support/controller.ts';
import { kubectl } from '../support/kubectl.ts';
import { waitFor } from '../support/wait.ts';
import type { ManagedProcess } from '../support/controlplane/process.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import { candidateOf } from '../../controller/leader.ts';
import { createApp, keepLogsOfFailure, listCustom, prepareFederation, readApp, startMember, twoComponentApp } from './support.ts';

/** The candidate (the `--identity` given) whose process holds the Lease. */
async function holder(kubeconfig: string): Promise<string> {
  const lease = await kubectl(kubeconfig, ['get', 'lease', '-n', 'edgeshifu-system', 'edgeshifu-controller', '-o', 'jsonpath={.spec.holderIdentity}']);
  return lease.code === 0 ? candidateOf(lease.stdout) : '';
}

test.serial('only the leader runs the agent; after it dies the new leader keeps what runs and offloads new work', async (t) => {
  const [a, b] = await prepareFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '4', memory: '8Gi' }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  // leases outlive the fail-over (a 15 s leader lease), as the default does
  const LEASE = ['--drone-lease-seconds', '45'];
  b.controller = await startMember(t, b, LEASE);
  keepLogsOfFailure(t, [b]);
  const replicas = new Map<string, ManagedProcess>();
  for (const id of ['replica-1', 'replica-2']) {
    const p = controllerProcess(a.kube, join(a.cluster.dir, 'logs', `${id}.log`), ['--identity', id, ...a.argv, ...LEASE]);
    p.start();
    t.teardown(() => p.stop());
    replicas.set(id, p);
  }
  const log = async (id: string): Promise<string> => readFile(replicas.get(id)?.spec.logFile ?? '', 'utf8').catch(() => '');
  const leader = await waitFor('a leader', async () => { const h = await holder(a.kube.kubeconfigPath); return h === '' ? undefined : h; }, { timeoutMs: 60_000 });
  const follower = leader === 'replica-1' ? 'replica-2' : 'replica-1';
  await waitFor('the leader\'s agent', async () => ((await log(leader)).includes('DRONE agent started') ? true : undefined), { timeoutMs: 60_000 });
  await waitFor('b to hear a', () => (b.controller.controller.offloader?.federation.agent.providers().includes('a') === true ? true : undefined), { timeoutMs: 30_000 });
  t.notRegex(await log(follower), /DRONE agent started/, 'the follower runs no agent and no broker');

  await createApp(a.kube, twoComponentApp('first'));
  await waitFor('first to run', async () => ((await readApp(a.kube, 'first'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 180_000 });

  await replicas.get(leader)?.kill();
  await waitFor('the follower to lead', async () => ((await holder(a.kube.kubeconfigPath)) === follower ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
  await waitFor('the new leader\'s agent', async () => ((await log(follower)).includes('DRONE agent started') ? true : undefined), { timeoutMs: 60_000 });

  await createApp(a.kube, twoComponentApp('second', { cpu: '300m', memory: '256Mi' }, '-2'));
  await waitFor('second to run', async () => ((await readApp(a.kube, 'second'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 180_000 });
  // a host's report may pass through CONNECTED while its pods' status settles under load: wait, bounded
  const first = await waitFor('first to run after the fail-over', async () => { const d = await readApp(a.kube, 'first'); return d?.status?.phase === 'RUNNING' ? d : undefined; }, { timeoutMs: 180_000 });
  t.is(first.status?.phase, 'RUNNING', 'what ran before the fail-over still runs');
  t.deepEqual(first.status?.components?.map((c) => c.cluster), ['b', 'b']);
  const hosted = await listCustom<HostRequest>(b.kube, 'hostrequests', 'drone-a');
  // (a small component of the second app may run on a itself: a bids on its own jobs too)
  const remote = [...(first.status?.components ?? []), ...((await readApp(a.kube, 'second'))?.status?.components ?? [])].filter((c) => c.cluster === 'b');
  t.deepEqual(hosted.map((h) => `${h.spec.app}/${h.spec.component}`).sort(), remote.map((c) => `${c.app ?? ''}/${c.name}`).sort(), 'one HostRequest per component b runs, none twice');
  t.true(hosted.every((h) => h.status?.phase === 'LAUNCHED'));
});
