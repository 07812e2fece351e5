// Starts a mock device by name: what the entrypoint, the tests and the benchmark share.
import { EdgeshifuError } from '../../shared/errors.ts';
import { agv, plateReader, plc, robotArm, thermometer } from './devices.ts';
import { startHttpMock, type MockRoute, type RunningMock } from './http-device.ts';
import { startModbusDevice } from './modbus-device.ts';
import { startMqttDevice } from './mqtt-device.ts';
import { startSocketEcho } from './socket-echo.ts';

const HTTP_DEVICES: Readonly<Record<string, () => Record<string, MockRoute>>> = {
  thermometer, agv, 'robot-arm': robotArm, robotarm: robotArm, 'plate-reader': plateReader, platereader: plateReader, plc,
};

export const MOCK_DEVICES = [...Object.keys(HTTP_DEVICES), 'socket', 'mqtt', 'opcua', 'modbus', 'lwm2m'] as const;

export interface MockOptions {
  readonly host: string;
  readonly port: number;
  /** MQTT device: broker to use instead of its own. */
  readonly brokerUrl?: string;
  /** OPC UA device: UserName credentials it accepts (anonymous refused when set). */
  readonly opcuaUsers?: Readonly<Record<string, string>>;
  /** Modbus device: RTU on this serial device instead of TCP. */
  readonly serialPath?: string;
  /** LwM2M device: the server it registers with (deviceShifu), host:port. */
  readonly lwm2mServer?: string;
  /** LwM2M device: its endpoint name (default leshan-client, as Shifu's example). */
  readonly endpointName?: string;
}

function lwm2mServer(text: string | undefined): { host: string; port: number } {
  const match = /^(.+):(\d{1,5})$/.exec(text ?? '');
  if (match === null) throw new EdgeshifuError('invalid', `the LwM2M mock needs --lwm2m-server host:port (deviceShifu's LwM2M server), not "${text ?? ''}"`);
  return { host: match[1] ?? '', port: Number(match[2]) };
}

export async function startMockDevice(name: string, options: MockOptions): Promise<RunningMock> {
  const routes = HTTP_DEVICES[name];
  if (routes !== undefined) return startHttpMock(name, routes(), options.host, options.port);
  if (name === 'socket') return startSocketEcho(options.host, options.port);
  // node-opcua loads only for the OPC UA mock
  if (name === 'opcua') return (await import('./opcua-device.ts')).startOpcuaMock({ host: options.host, port: options.port, ...(options.opcuaUsers === undefined ? {} : { users: options.opcuaUsers }) });
  if (name === 'mqtt') return startMqttDevice({ host: options.host, port: options.port, ...(options.brokerUrl === undefined ? {} : { brokerUrl: options.brokerUrl }) });
  if (name === 'modbus') return startModbusDevice({ host: options.host, port: options.port, ...(options.serialPath === undefined ? {} : { serialPath: options.serialPath }) });
  // node-coap loads only for the LwM2M mock
  if (name === 'lwm2m') {
    const { startLwm2mDevice } = await import('./lwm2m-device.ts');
    return startLwm2mDevice({ host: options.host, port: options.port, server: lwm2mServer(options.lwm2mServer), endpointName: options.endpointName ?? 'leshan-client' });
  }
  throw new EdgeshifuError('invalid', `no mock device "${name}"; choose one of ${MOCK_DEVICES.join(', ')}`);
}
