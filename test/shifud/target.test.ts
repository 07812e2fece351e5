// What shifud probes for each EdgeDevice, and the message a malformed address gets.
import test from 'ava';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { probeTargetOf } from '../../shifud/target.ts';

const TARGETS: ReadonlyArray<{ spec: EdgeDeviceSpec; target: unknown }> = [
  { spec: { protocol: 'TCP', address: '192.168.1.20:502' }, target: { kind: 'tcp', host: '192.168.1.20', port: 502 } },
  { spec: { protocol: 'Socket', address: 'plc-3.line.local:4000' }, target: { kind: 'tcp', host: 'plc-3.line.local', port: 4000 } },
  { spec: { protocol: 'TCP', address: '[fd00::20]:502' }, target: { kind: 'tcp', host: 'fd00::20', port: 502 } },
  { spec: { protocol: 'HTTP', address: '10.0.0.5:8080' }, target: { kind: 'tcp', host: '10.0.0.5', port: 8080 } },
  { spec: { protocol: 'HTTP', address: 'thermometer.local' }, target: { kind: 'tcp', host: 'thermometer.local', port: 80 } },
  { spec: { protocol: 'HTTP', address: '10.0.0.5:8080', customMetadata: { healthPath: '/health' } }, target: { kind: 'http', url: 'http://10.0.0.5:8080/health' } },
  { spec: { protocol: 'HTTP', address: 'https://cam.local/api/', customMetadata: { healthPath: '/status', healthExpect: 'cam-7' } }, target: { kind: 'http', url: 'https://cam.local:443/api/status', expect: 'cam-7' } },
  { spec: { protocol: 'HTTP', address: '[fd00::5]:80', customMetadata: { healthPath: '/health' } }, target: { kind: 'http', url: 'http://[fd00::5]:80/health' } },
  { spec: { protocol: 'MQTT', address: 'broker.local' }, target: { kind: 'mqtt', host: 'broker.local', port: 1883 } },
  { spec: { protocol: 'MQTT', address: 'x:1', protocolSettings: { MQTTSetting: { MQTTServerAddress: 'tcp://10.0.0.2:1884' } } }, target: { kind: 'mqtt', host: '10.0.0.2', port: 1884 } },
  { spec: { protocol: 'MQTT', address: 'mqtts://broker.local' }, target: { kind: 'tcp', host: 'broker.local', port: 8883 } },
  { spec: { protocol: 'OPCUA', address: 'opc.tcp://10.0.0.9/freeopcua/server' }, target: { kind: 'tcp', host: '10.0.0.9', port: 4840 } },
  { spec: { protocol: 'PLC4X', address: 'modbus-tcp://10.0.0.7' }, target: { kind: 'tcp', host: '10.0.0.7', port: 502 } },
  { spec: { protocol: 'USB', address: '/dev/ttyUSB0', customMetadata: { usbVendorId: '0403', usbProductId: '6001' } }, target: { kind: 'usb', identity: { vendorId: '0403', productId: '6001' } } },
  { spec: { protocol: 'Socket', address: '/dev/ttyS0', connection: 'Serial' }, target: { kind: 'none', why: 'serial devices are not probed by shifud' } },
];

test('each protocol gets its probe target', (t) => {
  for (const { spec, target } of TARGETS) t.deepEqual(probeTargetOf(spec), { ok: true, value: target }, JSON.stringify(spec));
});

const MALFORMED: ReadonlyArray<{ spec: EdgeDeviceSpec; message: string }> = [
  { spec: { protocol: 'TCP', address: '' }, message: 'spec.address is empty: write host:port, e.g. "192.168.1.20:502"' },
  { spec: { protocol: 'TCP' }, message: 'spec.address is empty: write host:port, e.g. "192.168.1.20:502"' },
  { spec: { protocol: 'TCP', address: '10.0.0.5' }, message: 'spec.address "10.0.0.5" has no port: write host:port, e.g. "10.0.0.5:502"' },
  { spec: { protocol: 'TCP', address: '10.0.0.5:0' }, message: 'spec.address "10.0.0.5:0" has port 0: use a port from 1 to 65535' },
  { spec: { protocol: 'TCP', address: '10.0.0.5:http' }, message: 'spec.address "10.0.0.5:http" has an invalid port "http": use a number from 1 to 65535' },
  { spec: { protocol: 'TCP', address: ':502' }, message: 'spec.address ":502" has no host: write host:port, e.g. "192.168.1.20:502"' },
  { spec: { protocol: 'TCP', address: 'plc_!:502' }, message: 'spec.address "plc_!:502" has an invalid host "plc_!": use an IP address or a DNS name' },
  { spec: { protocol: 'TCP', address: 'fd00::20' }, message: 'spec.address "fd00::20" looks like an IPv6 address without brackets: write [address]:port, e.g. "[fd00::20]:502"' },
  { spec: { protocol: 'TCP', address: 'tcp://10.0.0.5' }, message: 'spec.address "tcp://10.0.0.5" has no port: add :port after the host' },
  { spec: { protocol: 'PLC4X', address: 'knx://10.0.0.5' }, message: 'spec.address "knx://10.0.0.5" has no port and knx:// has no default: add :port after the host' },
  { spec: { protocol: 'HTTP', address: 'http://' }, message: 'spec.address "http://" is not a valid URL: write scheme://host:port/path' },
  { spec: { protocol: 'MQTT', address: 'x:1', protocolSettings: { MQTTSetting: { MQTTServerAddress: 'broker:1883x' } } }, message: 'spec.protocolSettings.MQTTSetting.MQTTServerAddress "broker:1883x" has an invalid port "1883x": use a number from 1 to 65535' },
  { spec: { protocol: 'USB', customMetadata: { usbProductId: '6001' } }, message: 'spec.customMetadata needs both usbVendorId and usbProductId (hex, e.g. "0403" and "6001")' },
];

test('a malformed address is refused with a message that says what to write instead', (t) => {
  for (const { spec, message } of MALFORMED) t.deepEqual(probeTargetOf(spec), { ok: false, message }, JSON.stringify(spec));
});
