// Shifu's socket mock: a TCP server that sends back whatever it reads.
import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { RunningMock } from './http-device.ts';

export async function startSocketEcho(host: string, port: number): Promise<RunningMock> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => { socket.write(chunk); });
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => { server.off('error', reject); resolve(); });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    name: 'socket', host, port: bound, address: `${host}:${bound}`,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => { resolve(); });
    }),
  };
}
