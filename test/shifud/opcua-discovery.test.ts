// OPC UA discovery against the real mock server and the real control plane: the servers at the
// configured host:port pairs, with their endpoints' security modes and policies, land in the
// EdgeNode status; a target that is no OPC UA server is left out. An OPC UA EdgeDevice whose
// server is gone is marked unreachable as any TCP device is.
import test from 'ava';
import { opcuaMock } from '../deviceshifu/support/opcua.ts';
import { installCrds } from '../support/crds.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { createDevice, fastConfig, readEdgeNode, startShifud, waitReachable } from './harness.ts';

test('shifud records the OPC UA servers at its targets in the EdgeNode status, with endpoints and security modes', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud-opcua');
  const mock = await opcuaMock(t);
  const nothing = await freePort();
  const nodeName = uniqueName('shifud-opcua');
  const shifud = await startShifud(t, kube, fastConfig(nodeName, { deviceNamespace: namespace, discoveryOpcua: [`127.0.0.1:${String(mock.port)}`, `127.0.0.1:${String(nothing)}`] }));
  t.truthy(shifud.opcua);
  const node = await waitFor('the EdgeNode to list the OPC UA server', async () => {
    const edgeNode = await readEdgeNode(kube, nodeName);
    return (edgeNode?.status?.opcuaServers?.length ?? 0) > 0 ? edgeNode : undefined;
  }, { timeoutMs: 60_000 });
  const servers = node.status?.opcuaServers ?? [];
  t.is(servers.length, 1, 'the port where nothing listens is left out');
  t.is(servers[0]?.target, `127.0.0.1:${String(mock.port)}`);
  t.regex(servers[0]?.applicationUri ?? '', /^urn:/);
  const modes = new Set((servers[0]?.endpoints ?? []).map((e) => `${e.securityMode} ${e.securityPolicy}`));
  for (const mode of ['None None', 'Sign Basic256Sha256', 'SignAndEncrypt Basic256Sha256', 'SignAndEncrypt Aes256_Sha256_RsaPss']) t.true(modes.has(mode), `${mode} among ${[...modes].join(', ')}`);
  // verification: an OPC UA device is probed as any TCP device; when its server goes, it is unreachable
  await createDevice(kube, namespace, 'press', { protocol: 'OPCUA', address: mock.endpoint });
  await waitReachable(kube, namespace, 'press', { status: 'True', reason: 'Reachable' });
  await mock.close();
  await waitReachable(kube, namespace, 'press', { status: 'False', reason: 'ConnectionRefused' });
});

test('without OPC UA targets, shifud has no OPC UA discovery', async (t) => {
  const kube = await sharedKube();
  const shifud = await startShifud(t, kube, fastConfig(uniqueName('shifud-no-opcua')));
  t.is(shifud.opcua, undefined);
});
