// Mock device entrypoint: `tsx deviceshifu/mockdevice/main.ts <device>` (or MOCKDEVICE_NAME), port
// from MOCKDEVICE_PORT (0 = any free port), bound to EDGESHIFU_BIND_ADDRESS (127.0.0.1 by default).
// Prints one JSON line with the address once it listens; stops on SIGINT/SIGTERM.
import { Type } from '@sinclair/typebox';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import { serveUntilSignal, type Serving } from '../../shared/serve.ts';
import { startMockDevice } from './start.ts';

const MockSettings = Type.Object({
  bindAddress: Type.String({ default: '127.0.0.1' }),
  brokerUrl: Type.Optional(Type.String({ description: 'MQTT device: the broker to publish to (default: its own).' })),
  opcuaUsername: Type.Optional(Type.String({ description: 'OPC UA device: require this user (with EDGESHIFU_OPCUA_PASSWORD); anonymous sessions are refused.' })),
  opcuaPassword: Type.Optional(Type.String({ description: 'OPC UA device: the password of --opcua-username (prefer the environment variable).' })),
  serialPath: Type.Optional(Type.String({ description: 'Modbus device: serve RTU on this serial device instead of TCP.' })),
  lwm2mServer: Type.Optional(Type.String({ description: 'LwM2M device: host:port of the LwM2M server (deviceShifu) it registers with.' })),
  lwm2mEndpoint: Type.Optional(Type.String({ description: 'LwM2M device: its endpoint name (default leshan-client).' })),
});

const logger = createLogger('mockdevice');

async function main(): Promise<Serving> {
  const settings = loadConfig(MockSettings, { argv: process.argv.slice(3), env: process.env });
  const name = process.argv[2] ?? process.env.MOCKDEVICE_NAME ?? '';
  const port = Number(process.env.MOCKDEVICE_PORT ?? '0');
  const opcuaUsers = settings.opcuaUsername === undefined ? undefined : { [settings.opcuaUsername]: settings.opcuaPassword ?? '' };
  const device = await startMockDevice(name, {
    host: settings.bindAddress, port, ...(settings.brokerUrl === undefined ? {} : { brokerUrl: settings.brokerUrl }), ...(opcuaUsers === undefined ? {} : { opcuaUsers }), ...(settings.serialPath === undefined ? {} : { serialPath: settings.serialPath }),
    ...(settings.lwm2mServer === undefined ? {} : { lwm2mServer: settings.lwm2mServer }), ...(settings.lwm2mEndpoint === undefined ? {} : { endpointName: settings.lwm2mEndpoint }),
  });
  process.stdout.write(`${JSON.stringify({ device: device.name, address: device.address, port: device.port })}\n`);
  return { stop: () => device.close() };
}

await serveUntilSignal(logger, 'mock device', main);
