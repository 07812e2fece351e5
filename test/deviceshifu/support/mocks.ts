// Mock devices for tests: Shifu's (deviceshifu/mockdevice) and the misbehaving ones each class of
// bad device input needs, all on 127.0.0.1:0 and closed when the test ends.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { ExecutionContext } from 'ava';
import { startMockDevice } from '../../../deviceshifu/mockdevice/start.ts';
import { listen, type RunningMock } from '../../../deviceshifu/mockdevice/http-device.ts';

export async function mockDevice(t: ExecutionContext, name: string, port = 0): Promise<RunningMock> {
  const device = await startMockDevice(name, { host: '127.0.0.1', port });
  t.teardown(() => device.close());
  return device;
}

export interface RecordingDevice extends RunningMock {
  readonly requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string; at: number }>;
}

/**
 * An HTTP device with scripted paths: /echo (method, url, body back), /slow (never answers),
 * /half (promises 100 bytes, sends 10, closes), /halfbig (promises 1 MiB, sends 128 KiB, closes),
 * /big (a 64 KiB body in chunks), /fail (500), else 200.
 */
export async function scriptedDevice(t: ExecutionContext): Promise<RecordingDevice> {
  const requests: RecordingDevice['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: performance.now() });
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/slow') return;
      if (path === '/half' || path === '/halfbig') {
        res.writeHead(200, { 'content-length': path === '/half' ? '100' : String(1 << 20) });
        res.write(path === '/half' ? '0123456789' : Buffer.alloc(128 * 1024, 1));
        setImmediate(() => res.socket?.destroy());
        return;
      }
      if (path === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 64; i += 1) res.write(Buffer.alloc(1024, i));
        res.end();
        return;
      }
      res.writeHead(path === '/fail' ? 500 : 200, { 'content-type': 'application/json', 'x-device': 'scripted' });
      res.end(JSON.stringify({ method: req.method, url: req.url, body }));
    });
  });
  const running = await listen(server, 'scripted', '127.0.0.1', 0);
  t.teardown(() => running.close());
  return { ...running, requests };
}

/**
 * An HTTP device that closes each kept-alive connection instead of answering its second request,
 * as a device closing idle connections does when the close crosses the next request: the first
 * request on a connection gets 200 and the connection's number, the second a reset.
 */
export async function idleClosingDevice(t: ExecutionContext): Promise<RecordingDevice & { readonly connections: () => number }> {
  const requests: RecordingDevice['requests'] = [];
  const served = new WeakMap<Socket, number>();
  let connections = 0;
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '', at: performance.now() });
    const connection = served.get(req.socket);
    if (connection !== undefined) {
      req.socket.destroy();
      return;
    }
    connections += 1;
    served.set(req.socket, connections);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`connection ${String(connections)}`);
  });
  const running = await listen(server, 'idle-closing', '127.0.0.1', 0);
  t.teardown(() => running.close());
  return { ...running, requests, connections: () => connections };
}

/** A TCP server that answers every request with bytes that are not HTTP. */
export async function garbageDevice(t: ExecutionContext): Promise<RunningMock> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => { socket.end('\u0000\u0001garbage that is not HTTP\r\n\r\n'); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const close = (): Promise<void> => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => { resolve(); }); });
  t.teardown(close);
  return { name: 'garbage', host: '127.0.0.1', port, address: `127.0.0.1:${port}`, close };
}

export interface CommandlineStub extends RunningMock {
  readonly commands: Array<{ command: string; cmdTimeout: string | null; contentType: string | undefined }>;
}

/** The stub an HTTPCommandline device runs: takes the command line as a POST body, says what it "ran". */
export async function commandlineStub(t: ExecutionContext, port = 0): Promise<CommandlineStub> {
  const commands: CommandlineStub['commands'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const command = Buffer.concat(chunks).toString('utf8');
      commands.push({ command, cmdTimeout: new URL(req.url ?? '/', 'http://x').searchParams.get('cmdTimeout'), contentType: req.headers['content-type'] });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`ran: ${command}`);
    });
  });
  const running = await listen(server, 'commandline-stub', '127.0.0.1', port);
  t.teardown(() => running.close());
  return { ...running, commands };
}
