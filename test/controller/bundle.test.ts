// The pure builders of a deviceShifu bundle: image by protocol, Service type, the TCP port, the
// broker Secret reaching the pod through the kubelet, names a Service can carry, and node flags.
import test from 'ava';
import { imageFor } from '../../controller/config.ts';
import { deviceShifuDeployment } from '../../controller/bundle/deployment.ts';
import { deviceShifuService } from '../../controller/bundle/service.ts';
import { bundleNames } from '../../controller/bundle/names.ts';
import { DEVICE_SHIFU_NODE_FLAGS, OPCUA_DEVICE_SHIFU_NODE_FLAGS, parseNodeFlags } from '../../controller/bundle/node-flags.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';

const settings = { namespace: 'deviceshifu', image: 'img', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '64Mi' };
const placement = { node: 'edge-1', placedAt: '2026-11-22T10:00:00Z', reason: 'most free memory' };
const device = (spec: EdgeDeviceSpec): { name: string; namespace: string; spec: EdgeDeviceSpec } => ({ name: 'dev', namespace: 'devices', spec });

test('the image comes from the per-protocol override, else the common image', (t) => {
  const config = { deviceShifuImage: 'edgeshifu:1', deviceShifuImages: 'MQTT=edgeshifu-mqtt:2, Socket = edgeshifu-socket:3' };
  t.is(imageFor(config, 'MQTT'), 'edgeshifu-mqtt:2');
  t.is(imageFor(config, 'Socket'), 'edgeshifu-socket:3');
  t.is(imageFor(config, 'HTTP'), 'edgeshifu:1');
  t.is(imageFor({ ...config, deviceShifuImages: '' }, 'MQTT'), 'edgeshifu:1');
});

test('the Service takes the configured type, a TCP device gets its listen port too, and an LwM2M device its CoAP port (UDP)', (t) => {
  const http = deviceShifuService(device({ protocol: 'HTTP', address: 'x:1' }), 'deviceshifu', 'LoadBalancer');
  t.is(http.spec?.type, 'LoadBalancer');
  t.deepEqual(http.spec?.ports?.map((p) => [p.name, p.port, p.targetPort]), [['http', 80, 8080]]);
  const tcp = deviceShifuService(device({ protocol: 'TCP', address: 'x:1', protocolSettings: { TCPSetting: { ListenPort: '9000' } } }), 'deviceshifu', 'ClusterIP');
  t.deepEqual(tcp.spec?.ports?.map((p) => [p.name, p.port, p.targetPort]), [['http', 80, 8080], ['tcp', 9000, 9000]]);
  const lwm2m = device({ protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: 'meter' } } });
  t.deepEqual(deviceShifuService(lwm2m, 'deviceshifu', 'ClusterIP').spec?.ports?.map((p) => [p.name, p.port, p.targetPort, p.protocol]), [['http', 80, 8080, 'TCP'], ['coap', 5683, 5683, 'UDP']]);
  t.deepEqual(deviceShifuDeployment(lwm2m, 'cm', placement, settings).spec?.template.spec?.containers[0]?.ports, [{ name: 'http', containerPort: 8080 }, { name: 'coap', containerPort: 5683, protocol: 'UDP' }]);
});

test('broker credentials reach the gateway from the Secret through the kubelet, never as values', (t) => {
  const spec: EdgeDeviceSpec = { protocol: 'MQTT', address: 'broker:1883', protocolSettings: { MQTTSetting: { MQTTServerSecret: 'broker-login' } } };
  const env = deviceShifuDeployment(device(spec), 'cm', placement, settings).spec?.template.spec?.containers[0]?.env ?? [];
  t.deepEqual(env.filter((e) => e.name.startsWith('MQTT_')).map((e) => [e.name, e.value, e.valueFrom?.secretKeyRef?.name, e.valueFrom?.secretKeyRef?.key]), [
    ['MQTT_USERNAME', undefined, 'broker-login', 'username'],
    ['MQTT_PASSWORD', undefined, 'broker-login', 'password'],
  ]);
  t.is(env.find((e) => e.name === 'EDGESHIFU_BIND_ADDRESS')?.valueFrom?.fieldRef?.fieldPath, 'status.podIP');
});

test('node flags: an OPC UA deviceShifu gets room for node-opcua\'s heap, the others the 24 MB cap', (t) => {
  const flagsOf = (spec: EdgeDeviceSpec): string | undefined => deviceShifuDeployment(device(spec), 'cm', placement, settings)
    .spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'NODE_FLAGS')?.value;
  t.is(flagsOf({ protocol: 'OPCUA', address: 'opc.tcp://x:4840' }), '--max-semi-space-size=1 --max-old-space-size=48 --single-threaded --invocation-count-for-feedback-allocation=200 --expose-gc');
  t.deepEqual(OPCUA_DEVICE_SHIFU_NODE_FLAGS, ['--max-semi-space-size=1', '--max-old-space-size=48', '--single-threaded', '--invocation-count-for-feedback-allocation=200', '--expose-gc']);
  for (const protocol of ['HTTP', 'MQTT', 'Modbus', 'Socket'] as const) t.is(flagsOf({ protocol, address: 'x:1' }), DEVICE_SHIFU_NODE_FLAGS.join(' '), protocol);
  t.is(deviceShifuDeployment(device({ protocol: 'OPCUA', address: 'opc.tcp://x:4840' }), 'cm', placement, { ...settings, nodeFlags: ['--max-opt=2'] })
    .spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'NODE_FLAGS')?.value, '--max-opt=2', 'the controller\'s setting still replaces them');
});

test('bundle names follow Shifu\'s thermometer sample, and a name no Service can carry is refused', (t) => {
  t.deepEqual(bundleNames({ name: 'edgedevice-thermometer', namespace: 'devices' }),
    { deployment: 'edgedevice-thermometer-deployment', service: 'edgedevice-thermometer', serviceAccount: 'deviceshifu-edgedevice-thermometer', role: 'deviceshifu-edgedevice-thermometer' });
  for (const bad of ['Thermo', 'thermo.v2', '9lives', `t${'x'.repeat(63)}`]) {
    t.throws(() => bundleNames({ name: bad, namespace: 'devices' }), { message: /cannot name its deviceShifu Service/ }, bad);
  }
});

test('node flags: none gives deviceShifu its own; set, they are the pod\'s NODE_FLAGS', (t) => {
  const spec: EdgeDeviceSpec = { protocol: 'HTTP', address: 'x:1' };
  const envOf = (nodeFlags: readonly string[] | undefined): Array<[string, string | undefined]> => (deviceShifuDeployment(device(spec), 'cm', placement, { ...settings, ...(nodeFlags === undefined ? {} : { nodeFlags }) })
    .spec?.template.spec?.containers[0]?.env ?? []).filter((e) => e.name === 'NODE_FLAGS').map((e) => [e.name, e.value]);
  t.deepEqual(envOf(undefined), [['NODE_FLAGS', DEVICE_SHIFU_NODE_FLAGS.join(' ')]]);
  t.deepEqual(envOf(parseNodeFlags('')), [['NODE_FLAGS', DEVICE_SHIFU_NODE_FLAGS.join(' ')]]);
  t.false(DEVICE_SHIFU_NODE_FLAGS.includes('--lite-mode'), 'the optimising compilers stay on');
  t.deepEqual(parseNodeFlags(DEVICE_SHIFU_NODE_FLAGS.join(' ')), [...DEVICE_SHIFU_NODE_FLAGS], 'the own flags pass the setting\'s own check');
  t.deepEqual(envOf(parseNodeFlags('  --max-opt=2   --max-semi-space-size=1 ')), [['NODE_FLAGS', '--max-opt=2 --max-semi-space-size=1']]);
});

test('node flags that are not plain tuning flags are refused, saying why', (t) => {
  const refused = (text: string): string => {
    try {
      parseNodeFlags(text);
    } catch (err) {
      t.true(isEdgeshifuError(err, 'invalid'), text);
      return (err as Error).message;
    }
    t.fail(`"${text}" was taken`);
    return '';
  };
  t.regex(refused('--max-opt=2 --require=/tmp/x.js'), /"--require" runs or loads code/);
  t.regex(refused('--inspect=0.0.0.0:9229'), /"--inspect" runs or loads code, or opens a port/);
  t.regex(refused('--inspect-brk'), /"--inspect-brk" runs or loads code/);
  t.regex(refused('--import=data:text/javascript,process.exit()'), /"--import" runs or loads code/);
  t.regex(refused('--max-opt=$(reboot)'), /"--max-opt=\$\(reboot\)" is not a flag/);
  t.regex(refused('max-opt=2'), /"max-opt=2" is not a flag: write each as --name or --name=value/);
  t.regex(refused('--max-opt=2;rm'), /is not a flag/);
  t.deepEqual(parseNodeFlags('--lite-mode --max-old-space-size=40'), ['--lite-mode', '--max-old-space-size=40']);
});

test('an OPC UA deviceShifu gets its certificate files projected from the ConfigMap and Secret, the password through the kubelet, and a writable /tmp', (t) => {
  const spec: EdgeDeviceSpec = {
    protocol: 'OPCUA', address: 'opc.tcp://plc:4840',
    protocolSettings: { OPCUASetting: { SecurityMode: 'SignAndEncrypt', AuthenticationMode: 'UserName', Username: 'op', CredentialsSecret: 'plc-login', ConfigmapName: 'plc-certs', CertificateFileName: 'c.pem', PrivateKeyFileName: 'k.pem' } },
  };
  const pod = deviceShifuDeployment(device(spec), 'cm', placement, settings).spec?.template.spec;
  const container = pod?.containers[0];
  t.deepEqual(container?.env?.filter((e) => e.name.startsWith('OPCUA_')).map((e) => [e.name, e.value, e.valueFrom?.secretKeyRef?.name, e.valueFrom?.secretKeyRef?.key]), [['OPCUA_PASSWORD', undefined, 'plc-login', 'password']]);
  t.deepEqual(container?.volumeMounts?.map((m) => [m.name, m.mountPath, m.readOnly]), [
    ['edgedevice-config', '/etc/edgedevice/config', true], ['tmp', '/tmp', undefined], ['opcua-certificates', '/etc/edgedevice/certificate', true],
  ]);
  t.deepEqual(pod?.volumes?.find((v) => v.name === 'opcua-certificates')?.projected?.sources, [{ configMap: { name: 'plc-certs' } }, { secret: { name: 'plc-login' } }]);
  t.true(container?.securityContext?.readOnlyRootFilesystem);
  const http = deviceShifuDeployment(device({ protocol: 'HTTP', address: 'x:1' }), 'cm', placement, settings).spec?.template.spec;
  t.deepEqual(http?.volumes?.map((v) => v.name), ['edgedevice-config']);
});
