// TCP devices: a raw two-way proxy from TCPSetting.ListenPort to the device address. It has no
// HTTP instructions; each accepted connection gets its own connection to the device, and a
// device that is down just closes the caller's connection (the listener stays up).
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Driver, DriverContext } from './driver.ts';
import { hostPort } from './address.ts';
import { tcpProbe } from './tcp-probe.ts';

function splice(client: Socket, context: DriverContext, target: ReturnType<typeof hostPort>): void {
  const device = connect({ host: target.host, port: target.port });
  device.setNoDelay(true);
  client.setNoDelay(true);
  client.pipe(device);
  device.pipe(client);
  const close = (): void => { client.destroy(); device.destroy(); };
  device.once('error', (err) => {
    context.logger.warn({ device: `${target.host}:${target.port}`, err: err.message }, 'TCP device connection failed');
    close();
  });
  client.once('error', close);
  device.once('close', close);
  client.once('close', close);
}

export interface TcpDriver extends Driver {
  /** The port actually listened on (ListenPort, or the one picked for port 0). */
  listenPort(): number | undefined;
}

export function createTcpDriver(context: DriverContext): TcpDriver {
  const setting = context.spec.protocolSettings?.TCPSetting ?? {};
  const port = context.options.tcpListenPort ?? Number(setting.ListenPort ?? '8081');
  const target = hostPort(context.spec.address);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  return {
    start: async () => {
      const listening = createServer((client) => {
        sockets.add(client);
        client.once('close', () => sockets.delete(client));
        splice(client, context, target);
      });
      await new Promise<void>((resolve, reject) => {
        listening.once('error', (err) => { reject(new EdgeshifuError('unavailable', `TCP proxy cannot listen on ${context.options.bindAddress}:${port}: ${err.message}`)); });
        listening.listen(port, context.options.bindAddress, resolve);
      });
      server = listening;
      context.logger.info({ listen: `${context.options.bindAddress}:${(listening.address() as AddressInfo).port}`, device: `${target.host}:${target.port}` }, 'TCP proxy listening');
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => { if (server === undefined) resolve(); else server.close(() => { resolve(); }); });
      server = undefined;
    },
    call: (instruction) => Promise.reject(new EdgeshifuError('invalid',
      `a TCP device has no HTTP instructions (${instruction.name}): connect to port ${(server?.address() as AddressInfo | null)?.port ?? port} instead`)),
    probe: (signal) => tcpProbe(target, signal),
    listenPort: () => (server?.address() as AddressInfo | null)?.port,
  };
}
