// What the controller writes per EdgeDevice, from created to BundleReady, counted by its own
// edgeshifu_kube_writes_total on the real control plane with KWOK nodes: every write it makes
// must change something (the API server, not the controller, bounds a large roll-out:
// controller/README.md, Benchmark). A write added to the path, a status written twice with the
// same content, or a bundle re-applied by a resync fails here.
import test from 'ava';
import { reconcileCount, startController, type RunningController } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { EdgeDevice } from '../../controller/world.ts';
import { createDevice, edgeCluster, thermometer } from './fixtures.ts';

const DEVICES = 24;

/** The controller's writes so far, by `verb kind`, and conflicts (a write sent from a stale cache). */
function writes(running: RunningController): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of running.registry.metrics().split('\n')) {
    const write = /^edgeshifu_kube_writes_total\{verb="(\w+)",kind="(\w+)"[^}]*\} (\d+)$/.exec(line);
    if (write !== null) counts[`${write[1] ?? ''} ${write[2] ?? ''}`] = Number(write[3]);
    const conflict = /^edgeshifu_reconcile_total\{[^}]*result="conflict"[^}]*\} (\d+)$/.exec(line);
    if (conflict !== null) counts.conflicts = (counts.conflicts ?? 0) + Number(conflict[1]);
  }
  return counts;
}

test.serial('a device costs one finalizer patch, one apply per bundle object, one Event and a status write per change; a resync writes nothing', async (t) => {
  const { kube } = await edgeCluster(t);
  for (const node of ['edge-1', 'edge-2', 'edge-3']) await kube.addNode(node, { memory: '16Gi', pods: '100' });
  const running = await startController(t, kube);
  const names = Array.from({ length: DEVICES }, (_, i) => `counted-${String(i)}`);
  await Promise.all(names.map((name) => createDevice(kube, thermometer(name))));

  const devices = await waitFor('every bundle ready', async () => {
    const list = await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices' }) as { items: EdgeDevice[] };
    const ready = list.items.filter((d) => d.status?.conditions?.some((c) => c.type === 'BundleReady' && c.status === 'True'));
    return ready.length === DEVICES ? ready : undefined;
  }, { timeoutMs: 180_000 });
  t.is(devices.length, DEVICES);

  const made = writes(running);
  t.log(made);
  const per = (key: string): number => (made[key] ?? 0) / DEVICES;
  t.is(per('finalizers EdgeDevice'), 1, 'one finalizer patch per device');
  for (const kind of ['ServiceAccount', 'Role', 'RoleBinding', 'Deployment', 'Service']) t.is(per(`apply ${kind}`), 1, `one apply of each ${kind}`);
  t.is(per('event Event'), 1, 'one Event: the placement decision');
  // Pending (Scheduled, Progressing), then Available: at most two, never the same content twice.
  // A status write can still lose a race to the API server (409) and is then sent once more: each
  // conflict may add one write, and conflicts stay rare (one in 24 devices was seen in a full CI run).
  const conflicts = made.conflicts ?? 0;
  const statusWrites = made['status EdgeDevice'] ?? 0;
  t.true(statusWrites >= DEVICES && statusWrites <= 2 * DEVICES + conflicts, `status writes per device: ${String(per('status EdgeDevice'))} with ${String(conflicts)} conflicts`);
  t.true(conflicts <= DEVICES / 8, `conflicts: ${String(conflicts)}`);
  t.is(made['delete Deployment'] ?? 0, 0);

  // two more rounds of resync for every device (FAST resyncs each device every 2 s) write nothing
  const reconciled = await reconcileCount(running.registry);
  await waitFor('two resync rounds', async () => (await reconcileCount(running.registry)) >= reconciled + 2 * DEVICES ? true : undefined, { timeoutMs: 120_000 });
  t.deepEqual(writes(running), made, 'resyncs changed nothing, so wrote nothing');

  // an edit that changes nothing the controller decides from (a label) writes nothing either
  const labelled = await reconcileCount(running.registry);
  await kube.custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices', name: 'counted-0', body: { metadata: { labels: { site: 'hall-2' } } } },
    (await import('@kubernetes/client-node')).setHeaderOptions('Content-Type', (await import('@kubernetes/client-node')).PatchStrategy.MergePatch));
  await waitFor('the labelled device reconciled', async () => (await reconcileCount(running.registry)) > labelled + DEVICES ? true : undefined, { timeoutMs: 120_000 });
  t.deepEqual(writes(running), made, 'a label edit wrote nothing');

  // a restart: the new process knows its Deployments and Services by their applied-hash
  // annotation and writes none again, but the one edited by hand while no controller ran
  await running.controller.stop();
  await kube.apps.patchNamespacedDeployment({ namespace: 'deviceshifu', name: 'counted-1-deployment', body: { spec: { replicas: 3 } } },
    (await import('@kubernetes/client-node')).setHeaderOptions('Content-Type', (await import('@kubernetes/client-node')).PatchStrategy.MergePatch));
  const restarted = await startController(t, kube);
  // the RoleBinding is now each device's last write (its Deployment and Service are known); then a resync round
  await waitFor('every device reconciled by the new process', () => ((writes(restarted)['apply RoleBinding'] ?? 0) >= DEVICES ? true : undefined), { timeoutMs: 120_000 });
  const first = await reconcileCount(restarted.registry);
  await waitFor('a resync round', async () => (await reconcileCount(restarted.registry)) >= first + DEVICES ? true : undefined, { timeoutMs: 120_000 });
  await waitFor('the hand edit undone', async () => (await kube.apps.readNamespacedDeployment({ namespace: 'deviceshifu', name: 'counted-1-deployment' })).spec?.replicas === 1 ? true : undefined);
  const again = writes(restarted);
  t.log(again);
  t.is(again['apply Deployment'], 1, 'only the Deployment edited by hand is applied again');
  t.is(again['apply Service'] ?? 0, 0, 'no Service applied again');
  // not watched, so not known: applied again, as before
  for (const kind of ['ServiceAccount', 'Role', 'RoleBinding']) t.is(again[`apply ${kind}`], DEVICES);
  for (const key of ['finalizers EdgeDevice', 'event Event', 'conflicts']) t.is(again[key] ?? 0, 0, key);
  // the edited device's bundle may show Progressing while its rollout is undone, then Available again
  t.true((again['status EdgeDevice'] ?? 0) <= 2, 'no status written but the edited device\'s');
});
