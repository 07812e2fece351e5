// shifud's Modbus probe against the Modbus mock: a device answering the configured probe register
// is online, an exception still proves a Modbus device, a wrong unit id hangs, another protocol is
// a mismatch, and a bad probe register is an InvalidSpec that says what to write.
import test from 'ava';
import { observe } from '../../shifud/probes/observe.ts';
import { verify } from '../../shifud/device-verifier.ts';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { startModbusDevice } from '../../deviceshifu/mockdevice/modbus-device.ts';
import { startMockDevice } from '../../deviceshifu/mockdevice/start.ts';

const options = { signal: new AbortController().signal, timeoutMs: 500, usbBus: () => Promise.resolve([]) };

function spec(address: string, register?: string, unitId = 1): EdgeDeviceSpec {
  return { protocol: 'Modbus', address, protocolSettings: { ModbusSetting: { unitId } }, ...(register === undefined ? {} : { customMetadata: { modbusProbeRegister: register } }) };
}

test('a Modbus device answering its probe register is online; an exception still proves it is there', async (t) => {
  const device = await startModbusDevice({ host: '127.0.0.1', port: 0, unitId: 2 });
  t.teardown(() => device.close());
  t.like(verify(await observe(spec(device.address, 'holding:0', 2), options)), { state: 'online', reason: 'Reachable' });
  const exception = verify(await observe(spec(device.address, 'input:5000', 2), options));
  t.like(exception, { state: 'online' });
  t.regex(exception.message, /Modbus exception 2: it is there, but check customMetadata.modbusProbeRegister/);
  const silent = verify(await observe(spec(device.address, 'coil:0', 9), options));
  t.like(silent, { state: 'offline', reason: 'NoAnswer' });
  t.regex(silent.message, /unit 9 accepted the connection but did not answer reading coil 0/);
  t.like(verify(await observe(spec(device.address), options)), { state: 'online' }, 'without a probe register: a TCP connect');
});

test('another protocol at the address is a mismatch; a bad probe register says what to write', async (t) => {
  const http = await startMockDevice('thermometer', { host: '127.0.0.1', port: 0 });
  t.teardown(() => http.close());
  t.like(verify(await observe(spec(http.address, 'holding:0'), options)), { state: 'mismatch', reason: 'WrongProtocol' });
  const bad = verify(await observe(spec(http.address, 'holding:70000'), options));
  t.like(bad, { state: 'invalid' });
  t.regex(bad.message, /modbusProbeRegister "holding:70000" must be <registerType>:<address>/);
  // an RTU device's port is looked at, not its registers (serial-port.test.ts): a path that is no port is said so
  t.like(verify(await observe({ protocol: 'Modbus', protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath: '/dev/shm' } } }, options)), { state: 'mismatch', reason: 'WrongProtocol' });
});
