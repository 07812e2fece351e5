// What the protocol benchmarks share: a bundle started and awaited on its first matching log line,
// RSS from /proc, a closed-loop load from N callers, and a GET that must answer one expected body.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { type Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import type { MemoryCgroup } from './container-memory.ts';

export const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5000);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/** Starts `node [flags] script args` (in the cgroup when given) and waits for the log line `ready` accepts. */
export async function start(script: string, args: string[], ready: (line: Record<string, unknown>) => boolean, options: { env?: NodeJS.ProcessEnv; flags?: string[]; cgroup?: MemoryCgroup } = {}): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
  const argv = [...(options.flags ?? []), script, ...args];
  const command = options.cgroup === undefined ? { command: process.execPath, args: argv } : options.cgroup.wrap(process.execPath, argv);
  const child = spawn(command.command, command.args, { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  for await (const text of createInterface({ input: child.stdout })) {
    try {
      const line = JSON.parse(text) as Record<string, unknown>;
      if (ready(line)) { child.stdout.resume(); return { child, line }; }
    } catch { /* not a JSON line */ }
  }
  throw new Error(`${script} exited before it was ready`);
}

export async function rssOf(pid: number): Promise<string> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return `RSS ${kb('VmRSS').toFixed(1)} MiB (anonymous ${kb('RssAnon').toFixed(1)}, peak ${kb('VmHWM').toFixed(1)})`;
}

export interface Result { readonly rps: number; readonly p50: number; readonly p99: number; readonly count: number }

/** `one()` from `concurrency` callers at once, timed, after a warm-up of 20 calls per caller. */
export async function load(one: () => Promise<void>, concurrency: number): Promise<Result> {
  for (let i = 0; i < concurrency * 20; i += 1) await one();
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  let issued = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < REQUESTS && performance.now() < deadline) {
      issued += 1;
      const t0 = performance.now();
      await one();
      latencies.push(performance.now() - t0);
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), count: latencies.length };
}

/** GET `url`; resolves on a 200 whose body `expected` accepts, rejects with the status and body otherwise. */
export function httpGet(agent: Agent, url: URL, expected: (body: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => { const body = Buffer.concat(chunks).toString(); if (res.statusCode === 200 && expected(body)) resolve(); else reject(new Error(`status ${String(res.statusCode)}: ${body}`)); });
    });
    req.once('error', reject);
    req.end();
  });
}
