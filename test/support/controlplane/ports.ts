import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

// A port is free between our check and the server's listen only if no other test process picked
// it meanwhile (clusters start in parallel across ava workers): each pick is claimed for a minute
// with a file created exclusively, which every process of the run sees.
const CLAIMS = join(tmpdir(), 'edgeshifu-port-claims');
const CLAIM_MS = 60_000;

function claim(port: number): boolean {
  mkdirSync(CLAIMS, { recursive: true });
  const file = join(CLAIMS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    // an old claim has lapsed: take it over
    try {
      if (Date.now() - statSync(file).mtimeMs < CLAIM_MS) return false;
      const now = new Date();
      utimesSync(file, now, now);
      return true;
    } catch {
      return false;
    }
  }
}

/** A TCP port free on 127.0.0.1 right now, outside the ephemeral range, and not just handed to another test process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (claim(port) && await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${LOW} and ${HIGH}`);
}

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
