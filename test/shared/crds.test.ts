import test from 'ava';
import { readFile } from 'node:fs/promises';
import { Validator } from '../../shared/validation.ts';
import { renderCrdManifests } from '../../shared/crds/render.ts';
import { EdgeDeviceSpec, PROTOCOLS } from '../../shared/crds/edgedevice.ts';
import { EDGE_DEVICE } from '../../shared/crds/resources.ts';
import { customResourceDefinition } from '../../shared/crds/crd.ts';
import { SHIFU_EXAMPLES, shifuExample } from '../support/shifu/index.ts';

test('the committed CRD manifests are exactly what the schemas render', async (t) => {
  for (const [file, text] of renderCrdManifests()) {
    const committed = await readFile(new URL(`../../manifests/crds/${file}`, import.meta.url), 'utf8');
    t.is(committed, text, `manifests/crds/${file} is stale: run npm run crds:generate`);
  }
});

// Every field of Shifu's EdgeDevice types: a missing one would make kubectl's
// strict validation reject a Shifu manifest that uses it.
const SHIFU_FIELDS: Record<string, readonly string[]> = {
  '': ['sku', 'connection', 'address', 'protocol', 'description', 'connectionInfo', 'customMetadata', 'gatewaySettings', 'protocolSettings'],
  protocolSettings: ['MQTTSetting', 'OPCUASetting', 'SocketSetting', 'TCPSetting', 'PLC4XSetting', 'LwM2MSetting'],
  'protocolSettings.MQTTSetting': ['MQTTTopic', 'MQTTServerAddress', 'MQTTServerSecret', 'MQTTServerUserName', 'MQTTServerPassword'],
  'protocolSettings.OPCUASetting': ['OPCUAEndpoint', 'SecurityMode', 'AuthenticationMode', 'CertificateFileName', 'PrivateKeyFileName',
    'ConfigmapName', 'IssuedToken', 'SecurityPolicy', 'Username', 'Password', 'ConnectionTimeoutInMilliseconds'],
  'protocolSettings.SocketSetting': ['encoding', 'bufferLength', 'networkType'],
  'protocolSettings.TCPSetting': ['NetworkType', 'ListenPort'],
  'protocolSettings.LwM2MSetting': ['endpointName', 'securityMode', 'dtlsMode', 'cipherSuites', 'pskIdentity', 'pskKey',
    'pingIntervalSec', 'lifeTimeSec', 'updateIntervalSec', 'observeIntervalSec'],
  gatewaySettings: ['protocol', 'address', 'LwM2MSetting', 'NATSSetting'],
};

type Schema = { properties?: Record<string, Schema> };

test('the EdgeDevice schema has every field Shifu defines', (t) => {
  const crd = customResourceDefinition(EDGE_DEVICE) as { spec: { versions: [{ schema: { openAPIV3Schema: Schema } }] } };
  const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties?.spec;
  for (const [path, fields] of Object.entries(SHIFU_FIELDS)) {
    const node = path === '' ? spec : path.split('.').reduce<Schema | undefined>((s, key) => s?.properties?.[key], spec);
    t.truthy(node, `spec.${path} missing`);
    for (const field of fields) t.truthy(node?.properties?.[field], `spec.${path ? `${path}.` : ''}${field} missing`);
  }
  // Shifu's protocols, and Modbus, which Shifu lacks
  t.deepEqual([...PROTOCOLS].sort(), ['HTTP', 'HTTPCommandline', 'LwM2M', 'Modbus', 'MQTT', 'OPCUA', 'PLC4X', 'Socket', 'TCP', 'USB'].sort());
});

const specs = new Validator(EdgeDeviceSpec, 'spec');

test('the runtime validator accepts every Shifu example spec', (t) => {
  for (const example of SHIFU_EXAMPLES) {
    for (const object of shifuExample(example)) {
      const spec = (object as unknown as { spec: unknown }).spec;
      // the API server drops null fields before validating (an empty `MQTTSetting:` in Shifu's demo)
      const pruned: unknown = JSON.parse(JSON.stringify(spec, (_k, v: unknown) => v ?? undefined));
      t.deepEqual(specs.errors(pruned), [], example);
    }
  }
});

test('the runtime validator names the field and the allowed values of a bad enum', (t) => {
  t.deepEqual(specs.errors({ protocol: 'BACnet', address: 'x:1' }), [{ field: 'spec.protocol', message: 'must be one of "HTTP", "HTTPCommandline", "LwM2M", "Modbus", "MQTT", "OPCUA", "PLC4X", "Socket", "TCP", "USB"' }]);
  t.deepEqual(specs.errors({ protocol: 'Socket', address: 'x:1', protocolSettings: { SocketSetting: { encoding: 'ascii' } } }),
    [{ field: 'spec.protocolSettings.SocketSetting.encoding', message: 'must be one of "utf-8", "hex"' }]);
  t.deepEqual(specs.errors({ address: 'x:1' }), [{ field: 'spec.protocol', message: 'is required' }]);
  t.deepEqual(specs.errors({ protocol: 'HTTP', customMetadata: { floor: 3 } }), [{ field: 'spec.customMetadata.floor', message: 'must be string' }]);
});
