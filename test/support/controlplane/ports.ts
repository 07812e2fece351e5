import { createServer } from 'node:net';

// Ports are picked below the kernel's ephemeral range (32768–60999 here): a port the kernel
// hands out for outgoing connections could be taken by one between our check and a later
// listen — most often when a test restarts a server on the same port.
const LOW = 20_000;
const HIGH = 32_000;

async function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => { resolve(false); });
    server.listen(port, '127.0.0.1', () => { server.close(() => { resolve(true); }); });
  });
}

/** A TCP port free on 127.0.0.1 right now, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${LOW} and ${HIGH}`);
}

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
