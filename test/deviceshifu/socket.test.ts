// The Socket driver through the gateway: utf-8 and hex, bufferLength, bad bodies, a reply that
// comes too late (never mistaken for the next reply), and a device reboot.
import test from 'ava';
import { createServer, type Socket } from 'node:net';
import type { ExecutionContext } from 'ava';
import { waitFor } from '../support/wait.ts';
import { startGateway, type TestGateway } from './support/device-shifu.ts';
import { mockDevice } from './support/mocks.ts';

const DATA = { instructions: 'instructions:\n  cmd:\n    readWrite: RW\n', telemetries: 'telemetrySettings:\n  telemetryUpdateIntervalInMiliseconds: 1000\n' };

async function socketGateway(t: ExecutionContext, address: string, setting: Record<string, unknown>): Promise<TestGateway> {
  return startGateway(t, { data: DATA, spec: { protocol: 'Socket', address, protocolSettings: { SocketSetting: { networkType: 'tcp', ...setting } } } });
}

async function send(gateway: TestGateway, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await gateway.get('/cmd', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

test('utf-8: the command goes out and the reply comes back as {message, status: 200}', async (t) => {
  const echo = await mockDevice(t, 'socket');
  const gateway = await socketGateway(t, echo.address, { encoding: 'utf-8' });
  t.deepEqual(await send(gateway, { command: 'héllo', timeout: 2 }), { status: 200, body: { message: 'héllo', status: 200 } });
});

test('hex: the command is hex-decoded on the way out and the reply hex-encoded on the way back', async (t) => {
  const echo = await mockDevice(t, 'socket');
  const gateway = await socketGateway(t, echo.address, { encoding: 'hex' });
  t.deepEqual(await send(gateway, { command: '48656c6c6f00ff' }), { status: 200, body: { message: '48656c6c6f00ff', status: 200 } });
});

test('a reply longer than bufferLength returns exactly bufferLength bytes, and the rest never leaks into the next reply', async (t) => {
  const echo = await mockDevice(t, 'socket');
  const gateway = await socketGateway(t, echo.address, { encoding: 'utf-8', bufferLength: 10 });
  t.deepEqual((await send(gateway, { command: 'hello world, long line' })).body, { message: 'hello worl', status: 200 });
  t.deepEqual((await send(gateway, { command: 'abc' })).body, { message: 'abc', status: 200 });
});

const BAD_BODIES: ReadonlyArray<[string, string, RegExp]> = [
  ['not JSON', 'command=hello', /body must be JSON/],
  ['a JSON array', '["hello"]', /JSON object/],
  ['a command that is not a string', '{"command": 42}', /body\.command must be a string/],
  ['a timeout that is not a number', '{"command": "x", "timeout": "soon"}', /body\.timeout must be a number/],
];

test('each bad body is a 400 that says what to send, and the gateway keeps serving', async (t) => {
  const echo = await mockDevice(t, 'socket');
  const gateway = await socketGateway(t, echo.address, {});
  for (const [what, body, message] of BAD_BODIES) {
    const reply = await send(gateway, body);
    t.is(reply.status, 400, what);
    t.regex((reply.body as { error: { message: string } }).error.message, message, what);
  }
  const hex = await socketGateway(t, echo.address, { encoding: 'hex' });
  t.is((await send(hex, { command: 'zz' })).status, 400);
  t.is((await hex.get('/cmd')).status, 405);
  t.deepEqual((await send(gateway, { command: 'still here' })).body, { message: 'still here', status: 200 });
});

/** A device that answers "slow" only after a while, and everything else at once. */
async function laggingDevice(t: ExecutionContext): Promise<{ address: string }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      const text = chunk.toString();
      if (text === 'slow') setTimeout(() => { if (!socket.destroyed) socket.write('late reply'); }, 800);
      else socket.write(`re: ${text}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => { resolve(); }); }));
  return { address: `127.0.0.1:${(server.address() as { port: number }).port}` };
}

test('a reply slower than body.timeout is a 504, and the late reply is never taken for the next one', async (t) => {
  const device = await laggingDevice(t);
  const gateway = await socketGateway(t, device.address, {});
  const slow = await send(gateway, { command: 'slow', timeout: 0.2 });
  t.is(slow.status, 504);
  t.regex((slow.body as { error: { message: string } }).error.message, /within body\.timeout 0\.2 s/);
  const next = await waitFor('the next command to get its own reply', async () => {
    const reply = await send(gateway, { command: 'next' });
    return reply.status === 200 ? reply : undefined;
  }, { timeoutMs: 10_000 });
  t.deepEqual(next.body, { message: 're: next', status: 200 });
  const again = await send(gateway, { command: 'again' });
  t.deepEqual(again.body, { message: 're: again', status: 200 });
});

test('after the device reboots the gateway reconnects by itself', async (t) => {
  const echo = await mockDevice(t, 'socket');
  const gateway = await socketGateway(t, echo.address, {});
  t.is((await send(gateway, { command: 'one' })).status, 200);
  await echo.close();
  const down = await send(gateway, { command: 'two' });
  t.is(down.status, 502);
  await mockDevice(t, 'socket', echo.port);
  const back = await waitFor('the gateway to reconnect', async () => {
    const reply = await send(gateway, { command: 'three' });
    return reply.status === 200 ? reply : undefined;
  }, { timeoutMs: 20_000 });
  t.deepEqual(back.body, { message: 'three', status: 200 });
});

test('/instructions lists the methods a socket instruction answers, and any other is a 405 with Allow and kind method-not-allowed', async (t) => {
  const echo = await mockDevice(t, 'socket');
  const gateway = await socketGateway(t, echo.address, {});
  const listing = await (await gateway.get('/instructions')).json() as { instructions: Array<{ name: string; methods: string[] }> };
  t.deepEqual(listing.instructions.find((i) => i.name === 'cmd')?.methods, ['POST', 'PUT']);
  const get = await gateway.get('/cmd');
  t.is(get.status, 405);
  t.is(get.headers.get('allow'), 'POST, PUT');
  t.like(await get.json(), { error: { kind: 'method-not-allowed', instruction: 'cmd' } });
  t.is((await send(gateway, { command: 'listed' })).status, 200);
});

test('a device that went away is a 502 naming the device and its address', async (t) => {
  const echo = await mockDevice(t, 'socket');
  const gateway = await socketGateway(t, echo.address, {});
  await echo.close();
  const reply = await send(gateway, { command: 'nobody' });
  t.is(reply.status, 502);
  t.regex((reply.body as { error: { message: string } }).error.message, new RegExp(`^device edgedevice-test at 127\\.0\\.0\\.1:${String(echo.port)} `));
});
