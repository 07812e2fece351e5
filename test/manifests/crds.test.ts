// The CRDs against the real API server: Shifu's manifests apply unchanged with kubectl's strict
// validation; each kind of mistake is refused with a message that names the field.
import test from 'ava';
import { stringify } from 'yaml';
import { ApiextensionsV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { freshNamespace, sharedKube, uniqueName, type Kube } from '../support/cluster.ts';
import { installCrds, CRD_NAMES, rejection } from '../support/crds.ts';
import { kubectl } from '../support/kubectl.ts';
import { SHIFU_EXAMPLES, shifuExample } from '../support/shifu/index.ts';
import { MERGE_PATCH } from '../../shared/kube/patch.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';

let kube: Kube;
test.before(async () => {
  kube = await sharedKube();
  await installCrds(kube);
});

async function createDevice(namespace: string, spec: unknown, name = uniqueName('dev')): Promise<unknown> {
  return kube.custom.createNamespacedCustomObject({
    group: GROUP, version: VERSION, namespace, plural: 'edgedevices', fieldValidation: 'Strict',
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name }, spec },
  });
}

test('the CRDs are established with a status subresource and printer columns', async (t) => {
  const api = kube.kc.makeApiClient(ApiextensionsV1Api);
  for (const name of CRD_NAMES) {
    const crd = await api.readCustomResourceDefinition({ name });
    t.true(crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'), name);
    t.deepEqual(crd.spec.versions[0]?.subresources?.status, {}, name);
    t.true((crd.spec.versions[0]?.additionalPrinterColumns?.length ?? 0) >= 4, name);
  }
});

for (const example of SHIFU_EXAMPLES) {
  test(`Shifu's ${example} example applies unchanged with strict validation`, async (t) => {
    const namespace = await freshNamespace(t, kube, `shifu-${example}`);
    const objects = shifuExample(example, namespace);
    const applied = await kubectl(kube.kubeconfigPath, ['apply', '--validate=strict', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
    t.is(applied.code, 0, applied.stderr);
    t.is(applied.stderr.trim(), '', 'no warnings: every field is known');
    for (const object of objects) {
      const stored = await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name: object.metadata?.name ?? '' }) as KubernetesObject & { spec: Record<string, unknown> };
      const given = (object as unknown as { spec: Record<string, unknown> }).spec;
      t.is(stored.spec.protocol, given.protocol);
      t.is(stored.spec.address, given.address);
      t.is(stored.spec.sku, given.sku);
    }
  });
}

test('kubectl get shows protocol, address, node and phase columns', async (t) => {
  const namespace = await freshNamespace(t, kube, 'columns');
  await createDevice(namespace, { protocol: 'HTTP', address: '10.0.0.7:11111', connection: 'Ethernet' }, 'thermo');
  await kube.custom.patchNamespacedCustomObjectStatus({
    group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name: 'thermo',
    body: { status: { edgedevicephase: 'Running', nodeName: 'edge-1' } },
  }, MERGE_PATCH);
  const got = await kubectl(kube.kubeconfigPath, ['get', 'edgedevices', '-n', namespace]);
  t.is(got.code, 0, got.stderr);
  const [header, row] = got.stdout.trim().split('\n');
  t.regex(header ?? '', /^NAME\s+PROTOCOL\s+ADDRESS\s+NODE\s+PHASE\s+AGE$/);
  t.regex(row ?? '', /^thermo\s+HTTP\s+10\.0\.0\.7:11111\s+edge-1\s+Running\s+\S+$/);
});

// Each kind of mistake, with what the message must name.
const INVALID_DEVICES: ReadonlyArray<{ mistake: string; spec: Record<string, unknown>; names: readonly string[] }> = [
  { mistake: 'a protocol Shifu does not know', spec: { protocol: 'BACnet', address: 'plc:47808' }, names: ['spec.protocol', 'Unsupported value', '"MQTT"'] },
  { mistake: 'no protocol at all', spec: { address: 'plc:502' }, names: ['spec.protocol', 'Required value'] },
  { mistake: 'an unknown connection', spec: { protocol: 'HTTP', address: 'x:1', connection: 'Bluetooth' }, names: ['spec.connection', 'Unsupported value', '"USB"'] },
  { mistake: 'an HTTP device without an address', spec: { protocol: 'HTTP' }, names: ['spec.address', 'required for this protocol'] },
  { mistake: 'an MQTT device without a broker', spec: { protocol: 'MQTT', protocolSettings: { MQTTSetting: { MQTTTopic: '/t' } } }, names: ['spec.protocolSettings.MQTTSetting', 'needs a broker'] },
  { mistake: 'an LwM2M device without its settings', spec: { protocol: 'LwM2M' }, names: ['spec.protocolSettings.LwM2MSetting', 'endpointName'] },
  { mistake: 'LwM2M over DTLS with a PSK', spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: 'meter', securityMode: 'DTLS', dtlsMode: 'PSK', cipherSuites: ['TLS_PSK_WITH_AES_128_CCM_8'], pskIdentity: 'hint', pskKey: 'ABC123' } } }, names: ['spec.protocolSettings.LwM2MSetting.securityMode', 'LwM2M over DTLS is not supported', 'securityMode: None'] },
  { mistake: 'a PSK key without DTLS', spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: 'meter', pskKey: 'ABC123' } } }, names: ['spec.protocolSettings.LwM2MSetting.securityMode', 'remove dtlsMode, cipherSuites, pskIdentity and pskKey'] },
  { mistake: 'a socket encoding that does not exist', spec: { protocol: 'Socket', address: 'x:1', protocolSettings: { SocketSetting: { encoding: 'ascii' } } }, names: ['spec.protocolSettings.SocketSetting.encoding', '"hex"'] },
  { mistake: 'settings for another protocol', spec: { protocol: 'HTTP', address: 'x:1', protocolSettings: { SocketSetting: { encoding: 'hex' } } }, names: ['spec.protocolSettings.SocketSetting', 'spec.protocol is not Socket'] },
  { mistake: 'a TCP listen port out of range', spec: { protocol: 'TCP', address: 'x:1', protocolSettings: { TCPSetting: { ListenPort: '70000' } } }, names: ['spec.protocolSettings.TCPSetting.ListenPort'] },
  { mistake: 'a buffer length of zero', spec: { protocol: 'Socket', address: 'x:1', protocolSettings: { SocketSetting: { bufferLength: 0 } } }, names: ['spec.protocolSettings.SocketSetting.bufferLength', 'greater than or equal to 1'] },
  { mistake: 'custom metadata that is not a string', spec: { protocol: 'HTTP', address: 'x:1', customMetadata: { floor: 3 } }, names: ['spec.customMetadata.floor', 'string'] },
  { mistake: 'a latitude off the globe', spec: { protocol: 'HTTP', address: 'x:1', location: { latitude: 123, longitude: 7 } }, names: ['spec.location.latitude', 'less than or equal to 90'] },
  { mistake: 'a latitude without a longitude', spec: { protocol: 'HTTP', address: 'x:1', location: { latitude: 45 } }, names: ['spec.location', 'latitude and longitude must be given together'] },
  { mistake: 'a misspelt field', spec: { protocol: 'HTTP', adress: 'x:1', address: 'x:1' }, names: ['unknown field', 'spec.adress'] },
];

for (const { mistake, spec, names } of INVALID_DEVICES) {
  test(`an EdgeDevice with ${mistake} is refused with a message naming the field`, async (t) => {
    const namespace = await freshNamespace(t, kube, 'invalid');
    const message = await rejection(createDevice(namespace, spec));
    for (const name of names) t.true(message.includes(name), `"${name}" not in: ${message}`);
    const list = await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices' }) as { items: unknown[] };
    t.is(list.items.length, 0, 'nothing was stored');
  });
}

test('status is written only through the status subresource, and validated there', async (t) => {
  const namespace = await freshNamespace(t, kube, 'status');
  const created = await createDevice(namespace, { protocol: 'HTTP', address: 'x:1' }, 'dev') as { metadata: { generation: number } };
  t.is(created.metadata.generation, 1);
  // a status in the main resource is dropped
  const replaced = await kube.custom.patchNamespacedCustomObject({
    group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name: 'dev', body: { status: { edgedevicephase: 'Running' } },
  }, MERGE_PATCH) as { status?: unknown };
  t.is(replaced.status, undefined);
  const condition = { type: 'Scheduled', status: 'True', reason: 'NodeChosen', message: 'placed on edge-1', lastTransitionTime: '2026-11-22T10:00:00Z', observedGeneration: 1 };
  const patched = await kube.custom.patchNamespacedCustomObjectStatus({
    group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name: 'dev',
    body: { status: { edgedevicephase: 'Pending', observedGeneration: 1, conditions: [condition] } },
  }, MERGE_PATCH) as { status: { edgedevicephase: string; conditions: unknown[] }; metadata: { generation: number } };
  t.is(patched.status.edgedevicephase, 'Pending');
  t.deepEqual(patched.status.conditions, [condition]);
  t.is(patched.metadata.generation, 1, 'a status write does not bump the generation');
  const message = await rejection(kube.custom.patchNamespacedCustomObjectStatus({
    group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name: 'dev',
    body: { status: { edgedevicephase: 'Exploded', conditions: [{ ...condition, status: 'Maybe' }] } },
  }, MERGE_PATCH));
  t.true(message.includes('status.edgedevicephase'), message);
  t.true(message.includes('status.conditions[0].status'), message);
});

test('an EdgeNode is cluster-scoped, takes its status from shifud, and refuses bad resources', async (t) => {
  const name = uniqueName('edge');
  t.teardown(async () => { await kube.custom.deleteClusterCustomObject({ group: GROUP, version: VERSION, plural: 'edgenodes', name }).catch(() => undefined); });
  await kube.custom.createClusterCustomObject({
    group: GROUP, version: VERSION, plural: 'edgenodes', fieldValidation: 'Strict',
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeNode', metadata: { name },
      spec: { location: { zone: 'line-3', latitude: 45.07, longitude: 7.68 }, neighbours: [{ node: 'edge-b', linkType: 'Ethernet', latencyMs: 0.4 }] } },
  });
  await kube.custom.patchClusterCustomObjectStatus({
    group: GROUP, version: VERSION, plural: 'edgenodes', name,
    body: { status: { capacity: { cpu: 4, memory: '8Gi', disk: '64Gi' }, free: { cpu: '3500m', memory: '6Gi' }, lastHeartbeatTime: '2026-11-22T10:00:00Z',
      conditions: [{ type: 'Ready', status: 'True', reason: 'HeartbeatFresh', message: 'shifud reporting', lastTransitionTime: '2026-11-22T10:00:00Z' }] } },
  }, MERGE_PATCH);
  const got = await kubectl(kube.kubeconfigPath, ['get', 'edgenode', name]);
  t.is(got.code, 0, got.stderr);
  t.regex(got.stdout, /NAME\s+ZONE\s+READY\s+CPU\s+MEMORY\s+HEARTBEAT\s+AGE/);
  t.regex(got.stdout, new RegExp(`${name}\\s+line-3\\s+True\\s+3500m\\s+6Gi`));

  const badLink = await rejection(kube.custom.createClusterCustomObject({
    group: GROUP, version: VERSION, plural: 'edgenodes',
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeNode', metadata: { name: uniqueName('edge') }, spec: { neighbours: [{ node: 'b', linkType: 'Pigeon' }] } },
  }));
  t.true(badLink.includes('spec.neighbours[0].linkType'), badLink);
  const badQuantity = await rejection(kube.custom.patchClusterCustomObjectStatus({
    group: GROUP, version: VERSION, plural: 'edgenodes', name, body: { status: { free: { memory: 'lots' } } },
  }, MERGE_PATCH));
  t.true(badQuantity.includes('status.free.memory'), badQuantity);
});
