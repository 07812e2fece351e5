// Drivers built straight from a ConfigMap and an EdgeDevice spec, as the gateway builds them, and
// one fixture per protocol with a device that can be started late and restarted on its port.
import type { ExecutionContext } from 'ava';
import { createLogger } from '../../../shared/log.ts';
import type { EdgeDeviceSpec } from '../../../shared/crds/edgedevice.ts';
import { parseConfig } from '../../../deviceshifu/config/parse.ts';
import type { Driver, DriverRequest, DriverResponse, SecretReader } from '../../../deviceshifu/drivers/driver.ts';
import { createDriver } from '../../../deviceshifu/drivers/index.ts';
import { readAll } from '../../../deviceshifu/telemetry/read-all.ts';
import { startLwm2mDevice } from '../../../deviceshifu/mockdevice/lwm2m-device.ts';
import { startModbusDevice } from '../../../deviceshifu/mockdevice/modbus-device.ts';
import { aedesBroker } from './brokers.ts';
import { logSink } from './device-shifu.ts';
import { commandlineStub, mockDevice, scriptedDevice } from './mocks.ts';

export interface BuiltDriver {
  readonly driver: Driver;
  readonly logs: string[];
  call(instruction: string, request?: Partial<DriverRequest>): Promise<{ status: number; body: string; headers: DriverResponse['headers'] }>;
}

export interface DriverSetup {
  readonly spec: EdgeDeviceSpec;
  readonly data: Readonly<Record<string, string>>;
  readonly secrets?: SecretReader;
  readonly tcpListenPort?: number;
  readonly lwm2mListenPort?: number;
}

export async function buildDriver(t: ExecutionContext, setup: DriverSetup): Promise<BuiltDriver> {
  const config = parseConfig(setup.data);
  const logs: string[] = [];
  const driver = await createDriver({
    deviceName: 'edgedevice-test', spec: setup.spec, config,
    options: { bindAddress: '127.0.0.1', ...(setup.tcpListenPort === undefined ? {} : { tcpListenPort: setup.tcpListenPort }), ...(setup.lwm2mListenPort === undefined ? {} : { lwm2mListenPort: setup.lwm2mListenPort }) },
    secrets: setup.secrets ?? (() => Promise.reject(new Error('no secrets in this test'))),
    logger: createLogger('deviceshifu', { destination: logSink(logs), level: 'debug' }),
  });
  const stop = new AbortController();
  await driver.start(stop.signal);
  t.teardown(async () => { stop.abort(); await driver.stop(); });
  const call = async (name: string, request: Partial<DriverRequest> = {}): Promise<{ status: number; body: string; headers: DriverResponse['headers'] }> => {
    const instruction = config.instructions.get(name);
    if (instruction === undefined) throw new Error(`test setup: no instruction ${name}`);
    const response: DriverResponse = await driver.call(instruction, {
      method: 'GET', query: '', headers: [], body: Buffer.alloc(0), timeoutSeconds: 5, signal: AbortSignal.timeout(5000), ...request,
    });
    return { status: response.status, headers: response.headers, body: (await readAll(response.body, 1 << 20)).toString('utf8') };
  };
  return { driver, logs, call };
}

/** A protocol, a device for it on a given port, and one call that must succeed once the device is up. */
export interface DriverFixture {
  readonly protocol: string;
  readonly setup: (port: number) => DriverSetup;
  readonly startDevice: (t: ExecutionContext, port: number) => Promise<{ close(): Promise<void> }>;
  readonly instruction: string;
  readonly request: Partial<DriverRequest>;
  readonly expected: RegExp;
}

const address = (port: number): string => `127.0.0.1:${port}`;

export const DRIVER_FIXTURES: readonly DriverFixture[] = [
  {
    protocol: 'HTTP',
    setup: (port) => ({ spec: { protocol: 'HTTP', address: address(port) }, data: { instructions: 'instructions:\n  read_value:\n    readWrite: R\n' } }),
    startDevice: (t, port) => mockDevice(t, 'thermometer', port),
    instruction: 'read_value', request: {}, expected: /^(1\d|2\d|30)$/,
  },
  {
    protocol: 'HTTPCommandline',
    setup: (port) => ({ spec: { protocol: 'HTTPCommandline', address: address(port) }, data: { driverProperties: 'driverExecution: "python driver.py"\n', instructions: 'instructions:\n  start:\n' } }),
    startDevice: (t, port) => commandlineStub(t, port),
    instruction: 'start', request: { method: 'POST', query: '?speed=3' }, expected: /^ran: python driver\.py start speed=3$/,
  },
  {
    protocol: 'Socket',
    setup: (port) => ({ spec: { protocol: 'Socket', address: address(port), protocolSettings: { SocketSetting: { encoding: 'utf-8', networkType: 'tcp' } } }, data: { instructions: 'instructions:\n  cmd:\n    readWrite: RW\n' } }),
    startDevice: (t, port) => mockDevice(t, 'socket', port),
    instruction: 'cmd', request: { method: 'POST', body: Buffer.from('{"command":"hello","timeout":10}') }, expected: /^\{"message":"hello","status":200\}$/,
  },
  {
    protocol: 'MQTT',
    setup: (port) => ({ spec: { protocol: 'MQTT', address: address(port) }, data: { instructions: 'instructions:\n  set:\n    protocolPropertyList:\n      MQTTTopic: /test/contract\n' } }),
    startDevice: async (t, port) => {
      const broker = await aedesBroker(t, { port });
      return { close: () => broker.stop() };
    },
    instruction: 'set', request: { method: 'POST', body: Buffer.from('on') }, expected: /^\{"mqtt_topic":"\/test\/contract","published_bytes":2\}$/,
  },
  {
    protocol: 'OPCUA',
    setup: (port) => ({ spec: { protocol: 'OPCUA', address: `opc.tcp://127.0.0.1:${port}` }, data: { instructions: 'instructions:\n  temperature:\n    protocolPropertyList:\n      OPCUANodeID: "ns=2;i=3"\n' } }),
    startDevice: async (t, port) => {
      // node-opcua loads only for this fixture
      const { startOpcuaMock } = await import('../../../deviceshifu/mockdevice/opcua-device.ts');
      const mock = await startOpcuaMock({ host: '127.0.0.1', port });
      let closed = false;
      t.teardown(async () => { if (!closed) await mock.close(); });
      return { close: async () => { closed = true; await mock.close(); } };
    },
    instruction: 'temperature', request: {}, expected: /^21\.5$/,
  },
  {
    protocol: 'Modbus',
    setup: (port) => ({ spec: { protocol: 'Modbus', address: address(port), protocolSettings: { ModbusSetting: { mode: 'TCP', unitId: 1 } } }, data: { instructions: 'instructions:\n  setpoint:\n    protocolPropertyList:\n      registerType: holding\n      address: "6"\n      dataType: float32\n' } }),
    startDevice: async (t, port) => {
      const device = await startModbusDevice({ host: '127.0.0.1', port });
      t.teardown(() => device.close());
      return device;
    },
    instruction: 'setpoint', request: {}, expected: /^21\.5$/,
  },
  {
    // the device is the LwM2M client: `port` is deviceShifu's LwM2M server port it registers at
    protocol: 'LwM2M',
    setup: (port) => ({ spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: 'contract' } } }, data: { instructions: 'instructions:\n  temperature:\n    protocolPropertyList:\n      ObjectId: /3303/0/5700\n' }, lwm2mListenPort: port }),
    startDevice: async (t, port) => {
      const device = await startLwm2mDevice({ host: '127.0.0.1', port: 0, server: { host: '127.0.0.1', port }, endpointName: 'contract', tickMs: 0 });
      t.teardown(() => device.close());
      return device;
    },
    instruction: 'temperature', request: {}, expected: /^21\.5$/,
  },
];

export { scriptedDevice };
