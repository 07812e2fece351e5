// The controller as a process, as it runs in a pod: killed mid-way through 200 devices it converges
// on restart with exactly one bundle per device and no orphans; two replicas elect one leader and
// the other takes over when it dies.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { controllerProcess } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { kubectl } from '../support/kubectl.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { MERGE_PATCH } from '../../shared/kube/patch.ts';
import type { Kube } from '../support/cluster.ts';
import type { ManagedProcess } from '../support/controlplane/process.ts';
import { createDevice, edgeCluster, thermometer } from './fixtures.ts';
import { candidateOf } from '../../controller/leader.ts';

const EDGE = { group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices' };

async function deploymentNames(kube: Kube): Promise<string[]> {
  return (await kube.apps.listNamespacedDeployment({ namespace: 'deviceshifu' })).items.map((d) => d.metadata?.name ?? '').sort();
}

async function deviceNames(kube: Kube): Promise<string[]> {
  const list = await kube.custom.listNamespacedCustomObject(EDGE) as { items: Array<{ metadata: { name: string } }> };
  return list.items.map((d) => d.metadata.name).sort();
}

function started(t: ExecutionContext, process: ManagedProcess): ManagedProcess {
  process.start();
  t.teardown(() => process.stop());
  return process;
}

test.serial('killed with SIGKILL mid-way through 200 devices, the restarted controller leaves exactly one bundle per device', async (t) => {
  const { cluster, kube } = await edgeCluster(t);
  for (const name of ['n1', 'n2', 'n3', 'n4']) await kube.addNode(name, { memory: '8Gi', cpu: '16', pods: '200' });
  const names = Array.from({ length: 200 }, (_, i) => `dev-${String(i).padStart(3, '0')}`);
  for (let i = 0; i < names.length; i += 20) await Promise.all(names.slice(i, i + 20).map((n) => createDevice(kube, thermometer(n))));

  const log = join(cluster.dir, 'logs', 'controller-1.log');
  const first = started(t, controllerProcess(kube, log, ['--no-leader-election']));
  await waitFor('a quarter of the bundles', async () => (await deploymentNames(kube)).length >= 50 ? true : undefined, { timeoutMs: 120_000 });
  await first.kill();
  const atKill = (await deploymentNames(kube)).length;
  t.true(atKill < 200, `killed mid-way (${atKill} bundles)`);

  // while it is down: ten devices are deleted (their finalizer keeps them until the controller
  // cleans up), and five lose their finalizer by hand, leaving orphaned bundles behind
  const deleted = names.slice(0, 10);
  await Promise.all(deleted.map((name) => kube.custom.deleteNamespacedCustomObject({ ...EDGE, name })));
  const withBundle = (await deploymentNames(kube)).map((d) => d.replace(/-deployment$/, '')).filter((n) => !deleted.includes(n)).slice(0, 5);
  for (const name of withBundle) {
    await kube.custom.patchNamespacedCustomObject({ ...EDGE, name, body: { metadata: { finalizers: null } } }, MERGE_PATCH);
    await kube.custom.deleteNamespacedCustomObject({ ...EDGE, name });
  }

  const second = started(t, controllerProcess(kube, join(cluster.dir, 'logs', 'controller-2.log'), ['--no-leader-election']));
  t.teardown(async () => { if (!t.passed) t.log((await logOf(second)).split('\n').filter((l) => !l.includes('"level":"debug"')).slice(-15).join('\n')); });
  const remaining = names.filter((n) => !deleted.includes(n) && !withBundle.includes(n));
  const expected = remaining.map((n) => `${n}-deployment`).sort();
  let current: string[] = [];
  await waitFor('one bundle per remaining device', async () => {
    current = await deploymentNames(kube);
    return current.length === expected.length && current.every((d, i) => d === expected[i]) ? true : undefined;
  }, { timeoutMs: 180_000, intervalMs: 500 }).catch((err: unknown) => {
    t.log(`extra: ${current.filter((d) => !expected.includes(d)).join(' ')}; missing: ${expected.filter((d) => !current.includes(d)).join(' ')}`);
    throw err;
  });
  t.deepEqual(await deviceNames(kube), remaining, 'deleted devices are gone: their finalizers were honoured');
  const services = (await kube.core.listNamespacedService({ namespace: 'deviceshifu' })).items.map((s) => s.metadata?.name ?? '').sort();
  t.deepEqual(services, [...remaining].sort());
  const accounts = (await kube.core.listNamespacedServiceAccount({ namespace: 'deviceshifu', labelSelector: 'app.kubernetes.io/managed-by=edgeshifu-controller' })).items;
  t.is(accounts.length, remaining.length);
});

/** The candidate (the `--identity` given) whose process holds the Lease. */
async function holder(kube: Kube): Promise<string> {
  const lease = await kubectl(kube.kubeconfigPath, ['get', 'lease', '-n', 'edgeshifu-system', 'edgeshifu-controller', '-o', 'jsonpath={.spec.holderIdentity}']);
  return lease.code === 0 ? candidateOf(lease.stdout) : '';
}

async function logOf(process: ManagedProcess): Promise<string> {
  return readFile(process.spec.logFile, 'utf8').catch(() => '');
}

test.serial('two replicas elect one leader, and the other takes over when the leader dies', async (t) => {
  const { cluster, kube } = await edgeCluster(t);
  await kube.core.createNamespace({ body: { metadata: { name: 'edgeshifu-system' } } });
  await kube.addNode('edge-1', { memory: '4Gi' });
  const replicas = new Map<string, ManagedProcess>();
  for (const id of ['replica-a', 'replica-b']) {
    replicas.set(id, started(t, controllerProcess(kube, join(cluster.dir, 'logs', `${id}.log`), ['--identity', id])));
  }
  const leader = await waitFor('a leader', async () => { const h = await holder(kube); return h === '' ? undefined : h; }, { timeoutMs: 60_000 });
  const follower = leader === 'replica-a' ? 'replica-b' : 'replica-a';
  await createDevice(kube, thermometer('first'));
  await waitFor('the leader serves it', async () => (await deploymentNames(kube)).includes('first-deployment') ? true : undefined, { timeoutMs: 60_000 });
  t.regex(await logOf(replicas.get(leader)!), /became leader/);
  t.notRegex(await logOf(replicas.get(follower)!), /became leader/, 'one leader at a time');

  const killedAt = Date.now();
  await replicas.get(leader)!.kill();
  await waitFor('the follower to take over', async () => (await holder(kube)) === follower ? true : undefined, { timeoutMs: 60_000, intervalMs: 250 });
  const failoverMs = Date.now() - killedAt;
  t.log(`fail-over took ${(failoverMs / 1000).toFixed(1)} s (lease 15 s)`);
  await createDevice(kube, thermometer('second'));
  await waitFor('the new leader serves it', async () => (await deploymentNames(kube)).includes('second-deployment') ? true : undefined, { timeoutMs: 60_000 });
  t.regex(await logOf(replicas.get(follower)!), /became leader/);
});

/** When the Lease was last renewed (ms), by whoever holds it. */
async function renewedAt(kube: Kube): Promise<number> {
  const lease = await kubectl(kube.kubeconfigPath, ['get', 'lease', '-n', 'edgeshifu-system', 'edgeshifu-controller', '-o', 'jsonpath={.spec.renewTime}']);
  return lease.code === 0 && lease.stdout !== '' ? Date.parse(lease.stdout) : 0;
}

// A container the kubelet restarts is a new process in the same pod: the same --identity (the pod's
// name), a new suffix. It waits one lease duration more before trying a Lease its pod's earlier
// process held (controller/leader.ts), so the standby, trying from expiry, takes over.
test.serial('the leader killed and started again under its pod\'s name, as the kubelet restarts a container: the standby takes the Lease and keeps it', async (t) => {
  const { cluster, kube } = await edgeCluster(t);
  await kube.core.createNamespace({ body: { metadata: { name: 'edgeshifu-system' } } });
  await kube.addNode('edge-1', { memory: '4Gi' });
  const replicas = new Map<string, ManagedProcess>();
  for (const id of ['pod-a', 'pod-b']) replicas.set(id, started(t, controllerProcess(kube, join(cluster.dir, 'logs', `${id}.log`), ['--identity', id])));
  const leader = await waitFor('a leader', async () => { const h = await holder(kube); return h === '' ? undefined : h; }, { timeoutMs: 60_000 });
  const standby = leader === 'pod-a' ? 'pod-b' : 'pod-a';
  await replicas.get(leader)!.kill();
  const killedAt = Date.now();
  const restarted = started(t, controllerProcess(kube, join(cluster.dir, 'logs', `${leader}-restarted.log`), ['--identity', leader]));
  await waitFor('the standby to take the Lease', async () => (await holder(kube)) === standby ? true : undefined, { timeoutMs: 60_000, intervalMs: 250 });
  t.log(`the standby took the Lease ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill (lease 15 s)`);
  // the restarted process may try once the old Lease is two durations old; by then the standby has renewed it
  await waitFor('a renewal after the restarted process\'s wait', async () => (await renewedAt(kube)) > killedAt + 30_000 ? true : undefined, { timeoutMs: 90_000, intervalMs: 500 });
  t.is(await holder(kube), standby, 'the standby keeps the Lease');
  t.notRegex(await logOf(restarted), /became leader/, 'the restarted process stands by');
  await createDevice(kube, thermometer('after-restart'));
  await waitFor('the standby, now leader, serves it', async () => (await deploymentNames(kube)).includes('after-restart-deployment') ? true : undefined, { timeoutMs: 60_000 });
});
