// Protocol → driver module, loaded on first use: a deviceShifu serves one device, so it loads one
// protocol's dependencies (mqtt alone is some 20 MB of RSS). A new protocol is one module and one
// line here.
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Protocol } from '../../shared/crds/edgedevice.ts';
import type { Driver, DriverContext, DriverFactory } from './driver.ts';

const FACTORIES: Partial<Record<Protocol, () => Promise<DriverFactory>>> = {
  HTTP: async () => (await import('./http.ts')).createHttpDriver,
  HTTPCommandline: async () => (await import('./httpcommandline.ts')).createCommandlineDriver,
  LwM2M: async () => (await import('./lwm2m/driver.ts')).createLwm2mDriver,
  Modbus: async () => (await import('./modbus.ts')).createModbusDriver,
  MQTT: async () => (await import('./mqtt.ts')).createMqttDriver,
  OPCUA: async () => (await import('./opcua.ts')).createOpcuaDriver,
  Socket: async () => (await import('./socket.ts')).createSocketDriver,
  TCP: async () => (await import('./tcp.ts')).createTcpDriver,
};

export const SUPPORTED_PROTOCOLS = Object.keys(FACTORIES) as Protocol[];

export async function createDriver(context: DriverContext): Promise<Driver> {
  const load = FACTORIES[context.spec.protocol];
  if (load === undefined) {
    throw new EdgeshifuError('invalid', `EdgeDevice ${context.deviceName}: protocol ${context.spec.protocol} is not supported yet (supported: ${SUPPORTED_PROTOCOLS.join(', ')})`);
  }
  return (await load())(context);
}
