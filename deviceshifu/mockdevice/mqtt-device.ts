// An MQTT device behind a broker (Shifu's MQTT demo): it publishes its status on a status topic
// every interval, and on a command containing "moving_the_device" it "moves" for a while, then
// publishes "device_finish_moving" (the completion string of Shifu's controlMsgs example).
// Without a broker URL it brings its own (aedes), so the demo needs nothing else.
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { connect } from 'mqtt';
import { pick, STATUSES, type RunningMock } from './http-device.ts';

export interface MqttDeviceOptions {
  readonly brokerUrl?: string;
  readonly host: string;
  readonly port: number;
  readonly statusTopic?: string;
  readonly commandTopic?: string;
  readonly intervalMs?: number;
  readonly movingMs?: number;
}

async function ownBroker(host: string, port: number): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const broker = await Aedes.createBroker();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    broker.handle(socket);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `mqtt://${host}:${bound}`, port: bound,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
      await new Promise<void>((resolve) => { broker.close(() => { resolve(); }); });
    },
  };
}

export async function startMqttDevice(options: MqttDeviceOptions): Promise<RunningMock> {
  const broker = options.brokerUrl === undefined ? await ownBroker(options.host, options.port) : undefined;
  const url = options.brokerUrl ?? broker?.url ?? '';
  const statusTopic = options.statusTopic ?? '/test/test1';
  const commandTopic = options.commandTopic ?? '/test/test2';
  const client = connect(url, { reconnectPeriod: 500, clientId: `mockdevice-mqtt-${process.pid}-${Date.now()}` });
  client.on('error', () => undefined);
  client.on('connect', () => { client.subscribe(commandTopic, { qos: 1 }); });
  const timers = new Set<NodeJS.Timeout>();
  client.on('message', (_topic, payload) => {
    if (!payload.toString('utf8').includes('moving_the_device')) return;
    const timer = setTimeout(() => { timers.delete(timer); client.publish(statusTopic, 'device_finish_moving', { qos: 1 }); }, options.movingMs ?? 500);
    timers.add(timer);
  });
  const ticker = setInterval(() => { if (client.connected) client.publish(statusTopic, pick(STATUSES), { qos: 1 }); }, options.intervalMs ?? 1000);
  const target = new URL(url);
  return {
    name: 'mqtt', host: target.hostname, port: Number(target.port), address: target.host,
    close: async () => {
      clearInterval(ticker);
      for (const timer of timers) clearTimeout(timer);
      await client.endAsync(true);
      await broker?.close();
    },
  };
}
