// The TCP driver: a raw two-way proxy on ListenPort to the device, that outlives the device.
import test from 'ava';
import { connect } from 'node:net';
import type { TcpDriver } from '../../deviceshifu/drivers/tcp.ts';
import { waitFor } from '../support/wait.ts';
import { startGateway } from './support/device-shifu.ts';
import { mockDevice } from './support/mocks.ts';
import { isLoopback, listeningAddresses } from '../support/sockets.ts';

async function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
      if (received.length >= text.length) { socket.end(); resolve(received); }
    });
    socket.once('error', reject);
    socket.once('close', () => { resolve(received); });
    socket.write(text);
  });
}

test('bytes sent to ListenPort reach the device and its answer comes back; the proxy outlives a device restart', async (t) => {
  const echo = await mockDevice(t, 'socket');
  const gateway = await startGateway(t, {
    data: { instructions: 'instructions: {}\n' },
    spec: { protocol: 'TCP', address: echo.address, protocolSettings: { TCPSetting: { NetworkType: 'tcp', ListenPort: '8081' } } },
    argv: ['--tcp-listen-port', '0'],
  });
  const port = await waitFor('the proxy to listen', () => (gateway.running.gateway.currentDriver() as TcpDriver | undefined)?.listenPort(), { timeoutMs: 10_000 });
  t.true((await listeningAddresses(process.pid)).filter((a) => a.endsWith(`:${port}`)).every(isLoopback));
  t.is(await roundTrip(port, 'raw bytes \u0000\u0001'), 'raw bytes \u0000\u0001');
  await echo.close();
  t.is(await roundTrip(port, 'nobody home'), '');
  await mockDevice(t, 'socket', echo.port);
  t.is(await waitFor('the device back', async () => ((await roundTrip(port, 'back')) === 'back' ? 'back' : undefined), { timeoutMs: 10_000 }), 'back');
  const http = await gateway.get('/anything');
  t.is(http.status, 404);
});
