// shifud survives its API server going away: it backs off instead of retrying every write, then
// catches up — the heartbeat resumes and a device that went down meanwhile is reported.
import test from 'ava';
import { KubeEdgeDeviceStatusWriter, KubeEdgeNodeClient } from '../../shifud/kube-clients.ts';
import type { EdgeDeviceStatusApply } from '../../shifud/device-status.ts';
import type { EdgeNode, EdgeNodeStatusApply } from '../../shifud/node-status.ts';
import { installCrds } from '../support/crds.ts';
import { ownCluster } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { MockDevice, createDevice, fastConfig, kubeClient, readEdgeNode, startShifud, waitReachable } from './harness.ts';

test('shifud rides out an API server restart without flooding it, then catches up', async (t) => {
  const { cluster, kube } = await ownCluster(t);
  await installCrds(kube);
  await kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
  const device = await new MockDevice().up();
  t.teardown(() => device.down());
  await createDevice(kube, 'devices', 'plc', { protocol: 'TCP', address: device.address });

  // status writes attempted, whether or not they reach the server
  const client = kubeClient(t, kube);
  const attempts = { count: 0 };
  const nodeClient = new (class extends KubeEdgeNodeClient {
    override async applyStatus(body: EdgeNodeStatusApply): Promise<EdgeNode> { attempts.count += 1; return super.applyStatus(body); }
  })(client);
  const deviceWriter = new (class extends KubeEdgeDeviceStatusWriter {
    override async applyStatus(body: EdgeDeviceStatusApply): Promise<void> { attempts.count += 1; return super.applyStatus(body); }
  })(client, 'edge-1');
  const shifud = await startShifud(t, kube, fastConfig('edge-1', { deviceNamespace: 'devices', heartbeatSeconds: 0.5 }), { client, edgeNodeClient: nodeClient, deviceWriter });
  await waitReachable(kube, 'devices', 'plc', { status: 'True' });

  await cluster.stopComponent('kube-apiserver');
  const stoppedAt = Date.now();
  const before = attempts.count;
  await device.down();
  await waitFor('shifud to notice the outage', () => shifud.gate.stats.outages > 0 ? true : undefined);
  await waitFor('writes to be held back', () => shifud.gate.stats.refused > 10 ? true : undefined);
  const readyz = async (): Promise<string> => { const res = await fetch(`http://127.0.0.1:${shifud.healthPort ?? 0}/readyz`); return `${res.status} ${await res.text()}`; };
  t.is(await readyz(), '503 the API server is not answering; backing off');
  t.is((await fetch(`http://127.0.0.1:${shifud.healthPort ?? 0}/healthz`)).status, 200, 'live all the same: a restart would not help');
  await cluster.startComponent('kube-apiserver');
  const outageMs = Date.now() - stoppedAt;
  const during = attempts.count - before;
  // without the gate: a heartbeat write per 0.2 s sample plus a device write per 0.2 s probe;
  // with it, at most one attempt per backoff floor (250 ms) across both
  t.log(`${during} write attempts in ${outageMs} ms of outage; ${shifud.gate.stats.refused} held back`);
  t.true(during <= outageMs / 250 + 2, `${during} write attempts in ${outageMs} ms of outage`);

  const restartedAt = new Date().toISOString();
  await waitReachable(kube, 'devices', 'plc', { status: 'False', reason: 'ConnectionRefused', timeoutMs: 60_000 });
  await waitFor('a heartbeat after the restart', async () => ((await readEdgeNode(kube, 'edge-1'))?.status?.lastHeartbeatTime ?? '') > restartedAt ? true : undefined, { timeoutMs: 60_000 });
  await device.up();
  await waitReachable(kube, 'devices', 'plc', { status: 'True' });
  await waitFor('ready again', async () => ((await readyz()).startsWith('200') ? true : undefined));
});
