// shifud registers its own EdgeNode and keeps its status current through the status subresource.
import test from 'ava';
import { GROUP, VERSION, EDGE_NODE, API_VERSION } from '../../shared/crds/resources.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { deleteEdgeNode, fastConfig, readEdgeNode, startShifud } from './harness.ts';
import type { EdgeNode } from '../../shifud/node-status.ts';
import { parseQuantity } from '../../shared/kube/quantity.ts';

test('shifud registers its EdgeNode and reports capacity, free resources, heartbeat and Ready', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const node = uniqueName('shifud-reg');
  const namespace = await freshNamespace(t, kube, 'shifud');
  t.is(await readEdgeNode(kube, node), undefined, 'no EdgeNode before shifud starts');
  await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace, heartbeatSeconds: 1 }));

  const registered = await waitFor('the EdgeNode with a Ready condition', async () => {
    const edgeNode = await readEdgeNode(kube, node);
    return edgeNode?.status?.conditions?.some((c) => c.type === 'Ready') === true ? edgeNode : undefined;
  });
  t.is(registered.metadata.labels?.['app.kubernetes.io/managed-by'], 'shifud');
  const status = registered.status!;
  t.regex(String(status.capacity?.cpu), /^\d+m$/, 'CPU in millicores');
  t.regex(String(status.capacity?.memory), /^[1-9]\d*Ki$/, 'memory in kibibytes, as a Node has it');
  t.regex(String(status.capacity?.disk), /^[1-9]\d*Ki$/, 'disk in kibibytes');
  t.true(parseQuantity(status.free?.memory ?? '') <= parseQuantity(status.capacity?.memory ?? ''), 'free memory within capacity');
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  t.like(ready, { status: 'True', reason: 'Sampling', observedGeneration: registered.metadata.generation });
  t.is(status.observedGeneration, registered.metadata.generation);

  // the heartbeat moves lastHeartbeatTime even when nothing else changes; Ready keeps its transition time
  const first = Date.parse(status.lastHeartbeatTime ?? '');
  const later = await waitFor('a heartbeat', async () => {
    const edgeNode = await readEdgeNode(kube, node);
    return Date.parse(edgeNode?.status?.lastHeartbeatTime ?? '') > first ? edgeNode : undefined;
  });
  t.is(later.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime, ready?.lastTransitionTime);
});

test('shifud writes only the status of an EdgeNode that exists, and leaves its spec alone', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const node = uniqueName('shifud-spec');
  const namespace = await freshNamespace(t, kube, 'shifud');
  const spec = { location: { zone: 'line-3' }, neighbours: [{ node: 'other', linkType: 'Ethernet' as const }] };
  await kube.custom.createClusterCustomObject({ group: GROUP, version: VERSION, plural: EDGE_NODE.plural,
    body: { apiVersion: API_VERSION, kind: EDGE_NODE.kind, metadata: { name: node }, spec } });
  t.teardown(() => deleteEdgeNode(kube, node));
  const shifud = await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace }));

  const edgeNode = await waitFor('status on the existing EdgeNode', async () => {
    const found = await readEdgeNode(kube, node);
    return found?.status?.capacity !== undefined ? found : undefined;
  });
  t.deepEqual(edgeNode.spec, spec);
  t.is(shifud.reporter.stats.registrations, 0, 'nothing created');
  const managers = (edgeNode.metadata.managedFields ?? []).filter((m) => m.manager === 'shifud');
  t.true(managers.length > 0 && managers.every((m) => m.subresource === 'status'), 'shifud manages status fields only');
});

test('an EdgeNode deleted under shifud is registered again', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const node = uniqueName('shifud-again');
  const namespace = await freshNamespace(t, kube, 'shifud');
  const shifud = await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace }));
  const first = await waitFor('the EdgeNode', async () => {
    const found = await readEdgeNode(kube, node);
    return found?.status?.capacity !== undefined ? found : undefined;
  });
  await deleteEdgeNode(kube, node);
  const again: EdgeNode = await waitFor('a new EdgeNode with status', async () => {
    const found = await readEdgeNode(kube, node);
    return found !== undefined && found.metadata.uid !== first.metadata.uid && found.status?.capacity !== undefined ? found : undefined;
  });
  t.truthy(again.status?.lastHeartbeatTime);
  t.is(shifud.reporter.stats.registrations, 2);
});
