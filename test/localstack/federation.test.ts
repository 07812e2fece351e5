// `npm start -- --clusters 2`: the local stack as DRONE cluster edge-1 plus a neighbour
// control plane edge-2; the demo app, too big for edge-1's node, is offloaded to edge-2 while the
// stack prints each phase. Checked through both API servers; the generated broker passwords
// appear in no output or log; Ctrl-C leaves no process behind.
import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kube } from '../support/cluster.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import type { OffloadRequest } from '../../controller/offload/origin-reconciler.ts';
import { stillRunning } from '../support/process-tree.ts';
import { spawnStack } from './processes.ts';

async function password(kube: Kube): Promise<string> {
  const secret = await kube.core.readNamespacedSecret({ namespace: 'edgeshifu-system', name: 'edgeshifu-drone' });
  return Buffer.from(secret.data?.password ?? '', 'base64').toString('utf8');
}

async function listCustom<T>(kube: Kube, plural: string, namespace?: string): Promise<T[]> {
  const list = (namespace === undefined
    ? await kube.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural })
    : await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural })) as { items: T[] };
  return list.items;
}

async function logsOf(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.log'));
  return (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
}

test('npm start -- --clusters 2 offloads a demo app from edge-1 to edge-2, printing its phases, and Ctrl-C leaves no process behind', async (t) => {
  t.timeout(15 * 60_000);
  const stack = await spawnStack(t, ['--clusters', '2']);
  await stack.printed('offload shop: RUNNING');
  const edge1 = new Kube(join(stack.dir, 'admin.kubeconfig'));
  const edge2 = new Kube(join(stack.dir, 'edge-2', 'admin.kubeconfig'));

  // what was printed, in order: the phases from the DFD status and where each component runs
  const phases = [...stack.output().matchAll(/offload shop: (\w+)/g)].map((m) => m[1]);
  t.deepEqual([...new Set(phases)], ['SCHEDULING', 'PENDING', 'RUNNING'], stack.output());
  t.regex(stack.output(), /offload shop: RUNNING {2}db → edge-2 LAUNCHED \(\S+:\d+\), api → edge-2 LAUNCHED \(\S+:\d+\)/);

  // the hosting side, through edge-2's API server: one HostRequest per component, LAUNCHED for edge-1
  const hosted = await listCustom<HostRequest>(edge2, 'hostrequests');
  t.deepEqual(hosted.map((h) => [h.metadata.namespace, h.spec.origin, h.spec.component, h.status?.phase]).sort(), [
    ['drone-edge-1', 'edge-1', 'api', 'LAUNCHED'], ['drone-edge-1', 'edge-1', 'db', 'LAUNCHED'],
  ]);
  const pods = (await edge2.core.listNamespacedPod({ namespace: 'drone-edge-1' })).items;
  t.deepEqual(pods.map((p) => [p.spec?.nodeName, p.status?.phase]).sort(), [['edge-2-node', 'Running'], ['edge-2-node', 'Running']], 'KWOK pods on edge-2\'s node');
  // the offloading side: nothing of the app runs on edge-1, its OffloadRequests say where it does
  const requests = await listCustom<OffloadRequest>(edge1, 'offloadrequests', 'apps');
  t.deepEqual(requests.map((r) => [r.spec.component, r.spec.cluster, r.status?.phase]).sort(), [['api', 'edge-2', 'LAUNCHED'], ['db', 'edge-2', 'LAUNCHED']]);
  t.deepEqual((await edge1.apps.listNamespacedDeployment({ namespace: 'apps' })).items, [], 'edge-1 runs none of it');

  await stack.printed('Ctrl-C stops everything.', 60_000);
  const output = stack.output();
  const seen = await stack.recordProcesses();
  for (const line of ['get dfd,oreq -A', 'get hreq -A', 'get federations', 'KWOK reports them Running; nothing executes']) t.true(output.includes(line), `prints "${line}"`);
  const droneIds = new Set(seen.flatMap((p) => /controller\/main\.ts .*--drone-cluster (\S+)/.exec(p.command)?.[1] ?? []));
  t.deepEqual([...droneIds].sort(), ['edge-1', 'edge-2'], 'a controller with DRONE per cluster');
  // the broker passwords are random, and neither printed, nor logged, nor in any argv
  const secrets = [await password(edge1), await password(edge2)];
  t.true(secrets.every((s) => s.length >= 20) && secrets[0] !== secrets[1]);
  const logs = await logsOf(stack.dir);
  for (const secret of secrets) {
    t.false(output.includes(secret), 'not printed');
    t.false(logs.includes(secret), 'not logged');
    t.false(seen.some((p) => p.command.includes(secret)), 'not in any process\'s argv');
  }

  stack.child.kill('SIGINT');
  const [code] = await stack.exited;
  t.is(code, 0, stack.output());
  t.true(stack.output().includes('stopped; nothing left running.'));
  t.deepEqual((await stillRunning(seen)).map((p) => `${String(p.pid)} ${p.command}`), [], 'every process npm start started is gone, on both clusters');
});
