// An LwM2M client (the device side) on one UDP socket: it registers with a server (deviceShifu),
// keeps the registration alive with Updates (registering again when the server has forgotten it),
// answers Read, Write, Execute and Observe on its objects (lwm2m-objects.ts), notifies observers
// when the temperature changes, and deregisters when closed. Test hooks: mute (stop answering),
// flood (a burst of notifications), forget its observers, deregister and register by hand.
import { createSocket, type Socket } from 'node:dgram';
import { Agent, Server, type IncomingMessage, type OutgoingMessage } from 'coap';
import { Lwm2mObjects } from './lwm2m-objects.ts';
import type { RunningMock } from './http-device.ts';

export interface Lwm2mDeviceOptions {
  readonly host: string;
  /** The client's own UDP port; 0 = any free port. */
  readonly port: number;
  /** The LwM2M server: deviceShifu's host and UDP port. */
  readonly server: { readonly host: string; readonly port: number };
  readonly endpointName: string;
  /** Registration lifetime asked for (default 60 s); Updates go out at half of it. */
  readonly lifetimeSec?: number;
  /** Register at start (default true). */
  readonly register?: boolean;
  /** A new reading every this many ms (default 1000; 0 = only by setTemperature). */
  readonly tickMs?: number;
}

export interface RunningLwm2mDevice extends RunningMock {
  readonly objects: Lwm2mObjects;
  /** requests: answered; ignored: arrived while muted. */
  readonly stats: { registers: number; updates: number; requests: number; ignored: number; observers: number };
  /** The location the server gave (rd/<id>), once registered. */
  location(): string | undefined;
  register(): Promise<string>;
  update(): Promise<string>;
  deregister(): Promise<string>;
  setTemperature(celsius: number): void;
  /** Sends `count` notifications of new temperatures to every observer at once. */
  flood(count: number): void;
  /** Stops answering the server's requests and sending Updates (a device gone quiet), or starts again. */
  mute(muted: boolean): void;
  /** Drops every observer without a word, keeping the registration (a restart from saved state). */
  forgetObservers(): void;
}

function locationOf(message: IncomingMessage): string | undefined {
  const parts = (message as unknown as { _packet: { options: Array<{ name: string; value: Buffer }> } })._packet.options
    .filter((o) => o.name === 'Location-Path').map((o) => o.value.toString('utf8'));
  return parts.length === 0 ? undefined : parts.join('/');
}

async function bound(host: string, port: number): Promise<Socket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => { socket.once('error', reject); socket.bind(port, host, () => { socket.off('error', reject); resolve(); }); });
  return socket;
}

/** Keeps an observer's stream until it ends; returns how many observers there are. */
function observe(observers: Map<string, Set<OutgoingMessage>>, path: string, res: OutgoingMessage): number {
  const set = observers.get(path) ?? new Set<OutgoingMessage>();
  observers.set(path, set);
  set.add(res);
  res.on('finish', () => { set.delete(res); });
  return [...observers.values()].reduce((n, s) => n + s.size, 0);
}

/** One request to the server (Register, Update, De-register) and its answer. */
function request(agent: Agent, server: Lwm2mDeviceOptions['server'], message: { method: 'POST' | 'DELETE'; pathname: string; query: string; payload?: string }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const { payload, ...rest } = message;
    const req = agent.request({ host: server.host, port: server.port, ...rest, confirmable: true, ...(payload === undefined ? {} : { options: { 'Content-Format': 'application/link-format' } }) });
    req.on('response', resolve);
    req.on('timeout', reject);
    req.on('error', reject);
    req.end(payload === undefined ? undefined : Buffer.from(payload));
  });
}

/** The answer to one request from the server: Read (GET), Write (PUT), Execute (POST). */
function answerOf(objects: Lwm2mObjects, req: IncomingMessage, path: string): { code: string; payload: string } {
  if (req.method === 'GET') return objects.read(path);
  if (req.method === 'PUT') return objects.write(path, req.payload.toString('utf8'));
  if (req.method === 'POST') return objects.execute(path);
  return { code: '4.05', payload: `${req.method} is not an LwM2M operation here` };
}

export async function startLwm2mDevice(options: Lwm2mDeviceOptions): Promise<RunningLwm2mDevice> {
  const objects = new Lwm2mObjects();
  const socket = await bound(options.host, options.port);
  const agent = new Agent({ socket });
  agent.on('error', () => undefined);
  const lifetimeSec = options.lifetimeSec ?? 60;
  const stats = { registers: 0, updates: 0, requests: 0, ignored: 0, observers: 0 };
  const observers = new Map<string, Set<OutgoingMessage>>();
  let location: string | undefined;
  let muted = false;
  let closed = false;

  const send = (method: 'POST' | 'DELETE', pathname: string, query: string, payload?: string): Promise<IncomingMessage> => request(agent, options.server, { method, pathname, query, ...(payload === undefined ? {} : { payload }) });
  const register = async (): Promise<string> => {
    const answer = await send('POST', '/rd', `ep=${encodeURIComponent(options.endpointName)}&lt=${lifetimeSec}&lwm2m=1.0&b=U`, objects.links());
    stats.registers += 1;
    if (answer.code === '2.01') location = locationOf(answer);
    return answer.code;
  };
  const update = async (): Promise<string> => {
    if (location === undefined) return register();
    const answer = await send('POST', `/${location}`, `lt=${lifetimeSec}`);
    stats.updates += 1;
    // the server forgot us (its lifetime ran out, or it restarted): register again
    if (answer.code === '4.04') return register();
    return answer.code;
  };
  const deregister = async (): Promise<string> => {
    if (location === undefined) return '4.04';
    const answer = await send('DELETE', `/${location}`, '');
    location = undefined;
    return answer.code;
  };

  const notify = (path: string): void => {
    const value = objects.value(path) ?? '';
    for (const res of observers.get(path) ?? []) res.write(value);
  };
  const server = new Server((req: IncomingMessage, res: OutgoingMessage) => {
    if (muted) { stats.ignored += 1; return; }
    stats.requests += 1;
    const path = req.url.split('?')[0] ?? '';
    const answer = answerOf(objects, req, path);
    res.code = answer.code;
    if (answer.code === '2.05') res.setOption('Content-Format', 'text/plain');
    if (req.method === 'GET' && req.headers.Observe === 0 && answer.code === '2.05') {
      stats.observers = observe(observers, path, res);
      res.write(answer.payload);
      return;
    }
    res.end(answer.payload === '' ? undefined : answer.payload);
  });
  server.listen(socket);

  const updater = setInterval(() => { if (!closed && !muted) void update().catch(() => undefined); }, Math.max(1000, (lifetimeSec * 1000) / 2));
  updater.unref();
  const tickMs = options.tickMs ?? 1000;
  const ticker = tickMs > 0 ? setInterval(() => { objects.setTemperature(Math.round((20 + Math.random() * 5) * 10) / 10); notify('/3303/0/5700'); }, tickMs) : undefined;
  ticker?.unref();
  if (options.register !== false) await register().catch(() => undefined);

  const port = socket.address().port;
  return {
    name: 'lwm2m', host: options.host, port, address: `${options.host}:${port}`, objects, stats,
    location: () => location, register, update, deregister,
    setTemperature(celsius) { objects.setTemperature(celsius); notify('/3303/0/5700'); },
    flood(count) {
      for (let i = 0; i < count; i += 1) { objects.setTemperature(20 + (i % 50) / 10); notify('/3303/0/5700'); }
    },
    mute(value) { muted = value; },
    forgetObservers() { observers.clear(); },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(updater);
      clearInterval(ticker);
      for (const set of observers.values()) for (const res of set) res.end();
      await Promise.race([deregister().catch(() => undefined), new Promise((resolve) => { setTimeout(resolve, 500).unref(); })]);
      agent.close(); // on a socket it was given, close() drops its requests and never calls back
      server.close();
      await new Promise<void>((resolve) => { socket.close(() => { resolve(); }); });
    },
  };
}
